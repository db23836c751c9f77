-- ==
-- accept

import "lib_accept"

def again = public
