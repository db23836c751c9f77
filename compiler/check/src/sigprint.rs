//! Printing module signatures (what a REPL's `:mtype` shows).

use std::fmt::Write;

use crate::env::{Env, Mod, Namespace, Scheme};
use crate::pretty::tparams_prefix;

/// Prints a module's signature as a module type.
pub fn print_mod(m: &Mod) -> String {
    let mut out = String::new();
    write_mod(&mut out, m, 0);
    out
}

/// Prints the specifications of an environment, one per line.
pub fn print_env(env: &Env) -> String {
    let mut out = String::new();
    write_env(&mut out, env, 0);
    out
}

fn write_mod(out: &mut String, m: &Mod, indent: usize) {
    match m {
        Mod::Env(e) => {
            out.push_str("{\n");
            write_env(out, e, indent + 2);
            let _ = write!(out, "{}}}", " ".repeat(indent));
        }
        Mod::Fun(f) => {
            let _ = write!(out, "({} : ", f.param_name);
            write_mod(out, &f.param.m, indent);
            out.push_str(") -> ");
            write_mod(out, &f.ret.m, indent);
        }
    }
}

fn write_env(out: &mut String, env: &Env, indent: usize) {
    let pad = " ".repeat(indent);
    for (ns, name) in &env.order {
        match ns {
            Namespace::Type => {
                if let Some(b) = env.types.get(name) {
                    let kw = match b.lifted {
                        crate::types::Liftedness::Unlifted => "type",
                        crate::types::Liftedness::SizeLifted => "type~",
                        crate::types::Liftedness::Lifted => "type^",
                    };
                    let params = tparams_prefix(&b.params);
                    let _ = writeln!(out, "{pad}{kw} {name} {params}= {}", b.ty);
                }
            }
            Namespace::Val => {
                if let Some(b) = env.vals.get(name) {
                    match &*b.scheme {
                        Scheme::Poly(ps, t) => {
                            let _ = writeln!(out, "{pad}val {name} {}: {t}", tparams_prefix(ps));
                        }
                        Scheme::Overloaded(_) => {
                            let _ = writeln!(out, "{pad}val {name} : (overloaded)");
                        }
                    }
                }
            }
            Namespace::Mod => {
                if let Some(b) = env.mods.get(name) {
                    let _ = write!(out, "{pad}module {name} : ");
                    write_mod(out, &b.m, indent);
                    out.push('\n');
                }
            }
            Namespace::ModType => {
                if let Some(b) = env.modtypes.get(name) {
                    let _ = write!(out, "{pad}module type {name} = ");
                    write_mod(out, &b.mty.m, indent);
                    out.push('\n');
                }
            }
        }
    }
}
