//! Typed AST to IR: defunctorise, monomorphise, defunctionalise. (Issue 5; not yet built.)
