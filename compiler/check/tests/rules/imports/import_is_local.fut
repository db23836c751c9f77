-- An import is a local open: what it brings is not re-exported.
-- ==
-- error: Unknown name "public"

import "reexport_accept"

def y = public
