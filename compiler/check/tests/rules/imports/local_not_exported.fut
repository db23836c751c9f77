-- ==
-- error: Unknown name "secret"

import "lib_accept"

def x = secret
