-- ==
-- error: may not be explicitly imported

import "/prelude/math"
