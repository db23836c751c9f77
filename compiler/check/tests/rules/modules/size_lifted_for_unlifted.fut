-- ==
-- error: lifted

module M : { type t } = { type~ t = []i32 }
