-- ==
-- warning: ^$

import "lib_accept"

def again = public
