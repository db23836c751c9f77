//! The session's commands (`:load`, `:type`, … in the REPL; `%load`, `%type`, … in
//! notebooks): parsing with unique prefixes, and running them against a [`Session`].
//!
//! Both faces run commands through [`run`], so they answer alike; each face prints the
//! [`CommandOutput`] its own way and may handle a command itself first (the notebook shows
//! `%doc` in its pager).

use std::path::Path;

use crate::backend::{BackendChoice, probe_gpus};
use crate::engine::Session;
use crate::outcome::{CellError, ErrorKind, duration_text};

/// A parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Load(String),
    Reload,
    Type(String),
    MType(String),
    Doc(String),
    /// `:time` shows the last cell's timing; `on`/`off` switch printing it after each cell.
    Time(Option<bool>),
    /// `:gpus` shows the GPUs; `:gpus N` limits how many are used.
    Gpus(Option<usize>),
    /// `:unsafe [on|off]`: whether compiled cells leave out their run-time checks.
    Unsafe(Option<bool>),
    Backend(Option<BackendChoice>),
    Kernels,
    Ir(Option<String>),
    Profile,
    /// `:compare [A B]`: cell B's times against cell A's (default: the last two).
    Compare(Option<(usize, usize)>),
    Help,
    Quit,
}

/// Every command: name, argument synopsis, one-line description.
pub const COMMANDS: [(&str, &str, &str); 15] = [
    (
        "load",
        "FILE",
        "load a Futhark file, replacing everything defined so far",
    ),
    ("reload", "", "load the last loaded file again"),
    ("type", "EXP", "show the type of an expression"),
    ("mtype", "MODEXP", "show the signature of a module"),
    (
        "doc",
        "NAME",
        "show the signature and documentation of a name",
    ),
    (
        "time",
        "[on|off]",
        "show the last cell's timing, or print timing after each cell",
    ),
    ("gpus", "[N]", "show the visible GPUs, or use at most N"),
    (
        "unsafe",
        "[on|off]",
        "leave out the run-time checks of compiled cells (bounds, division), or put them back",
    ),
    (
        "backend",
        "[auto|interp|cuda|cpu]",
        "show or choose where cells run",
    ),
    (
        "kernels",
        "",
        "show the CUDA source of the last cell's kernels",
    ),
    (
        "ir",
        "[soacs|fused|kernels]",
        "show the IR of the last cell (default: kernels)",
    ),
    (
        "profile",
        "",
        "show where the last cell ran and its kernels' times",
    ),
    (
        "compare",
        "[A B]",
        "compare the times of expression cells A and B (default: the last two)",
    ),
    ("help", "", "show this help"),
    ("quit", "", "leave"),
];

/// Commands of the reference `futhark repl`; an ambiguous prefix prefers these (`:t` is
/// `:type`, as there).
const REFERENCE: [&str; 5] = ["load", "type", "mtype", "help", "quit"];

/// The command names, for completion.
pub fn names() -> Vec<&'static str> {
    COMMANDS.iter().map(|c| c.0).collect()
}

/// Parses a command line without its marker (`type 1 + 2`); errors name commands with
/// `marker` (`:` in the REPL, `%` in notebooks).
pub fn parse(line: &str, marker: char) -> Result<Command, CellError> {
    let line = line.trim();
    let (word, arg) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let name = resolve(word, marker)?;
    let usage = |what: &str| CellError::message(ErrorKind::Usage, format!("{marker}{name} {what}"));
    let need = |what: &str| -> Result<String, CellError> {
        if arg.is_empty() {
            Err(usage(&format!("needs {what}")))
        } else {
            Ok(arg.to_string())
        }
    };
    Ok(match name {
        "load" => Command::Load(need("a file name")?),
        "reload" => Command::Reload,
        "type" => Command::Type(need("an expression")?),
        "mtype" => Command::MType(need("a module")?),
        "doc" => Command::Doc(need("a name")?),
        "time" => Command::Time(match arg {
            "" => None,
            "on" => Some(true),
            "off" => Some(false),
            _ => return Err(usage("takes on or off")),
        }),
        "gpus" => Command::Gpus(match arg {
            "" | "all" => None,
            n => Some(
                n.parse()
                    .map_err(|_| usage("takes a number of GPUs or all"))?,
            ),
        }),
        "unsafe" => Command::Unsafe(match arg {
            "" => None,
            "on" => Some(true),
            "off" => Some(false),
            _ => return Err(usage("takes on or off")),
        }),
        "backend" => Command::Backend(match arg {
            "" => None,
            b => Some(
                b.parse::<BackendChoice>()
                    .map_err(|e| CellError::message(ErrorKind::Usage, e.to_string()))?,
            ),
        }),
        "kernels" => Command::Kernels,
        "ir" => Command::Ir((!arg.is_empty()).then(|| arg.to_string())),
        "profile" => Command::Profile,
        "compare" => Command::Compare(match arg {
            "" => None,
            _ => {
                let nums: Vec<usize> = arg
                    .split_whitespace()
                    .map(|w| w.trim_matches(|c| c == '[' || c == ']').parse())
                    .collect::<Result<_, _>>()
                    .map_err(|_| usage("takes two cell numbers"))?;
                match nums.as_slice() {
                    [a, b] => Some((*a, *b)),
                    _ => return Err(usage("takes two cell numbers")),
                }
            }
        }),
        "help" => Command::Help,
        _ => Command::Quit,
    })
}

/// The full name of a command given a unique prefix.
fn resolve(word: &str, marker: char) -> Result<&'static str, CellError> {
    if word.is_empty() {
        return Err(CellError::message(
            ErrorKind::Usage,
            format!("no command given; try {marker}help"),
        ));
    }
    if let Some(c) = COMMANDS.iter().find(|c| c.0 == word) {
        return Ok(c.0);
    }
    let matches: Vec<&'static str> = COMMANDS
        .iter()
        .map(|c| c.0)
        .filter(|n| n.starts_with(word))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(CellError::message(
            ErrorKind::Usage,
            format!("unknown command {marker}{word}; try {marker}help"),
        )),
        several => {
            let preferred: Vec<&&str> = several.iter().filter(|n| REFERENCE.contains(n)).collect();
            match preferred.as_slice() {
                [one] => Ok(one),
                _ => Err(CellError::message(
                    ErrorKind::Usage,
                    format!(
                        "ambiguous command {marker}{word} (could be {})",
                        several
                            .iter()
                            .map(|n| format!("{marker}{n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
            }
        }
    }
}

/// The result of a command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommandOutput {
    pub text: String,
    pub error: Option<CellError>,
    /// The user asked to leave.
    pub quit: bool,
}

impl CommandOutput {
    fn text(text: impl Into<String>) -> CommandOutput {
        CommandOutput {
            text: text.into(),
            ..CommandOutput::default()
        }
    }

    fn error(e: CellError) -> CommandOutput {
        CommandOutput {
            error: Some(e),
            ..CommandOutput::default()
        }
    }
}

/// The help text, commands written with `marker`.
pub fn help(marker: char) -> String {
    let mut out = String::from(
        "Enter a declaration (def, type, module, let x = …) or an expression; its value\n\
         is printed and bound to `it`. Commands may be abbreviated to a unique prefix.\n\n",
    );
    for (name, args, what) in COMMANDS {
        let synopsis = format!("{marker}{name} {args}");
        out.push_str(&format!("  {synopsis:<28} {what}\n"));
    }
    out.trim_end().to_string()
}

/// Runs a command.
pub fn run(session: &mut Session, command: Command, marker: char) -> CommandOutput {
    match command {
        Command::Load(path) => match session.load(Path::new(&path)) {
            Ok(r) => CommandOutput::text(format!(
                "Loaded {path} ({}).{}",
                duration_text(r.time),
                warnings_text(session, &r.warnings)
            )),
            Err(e) => CommandOutput::error(e),
        },
        Command::Reload => match session.reload() {
            Ok(r) => {
                let what = match session.loaded_file() {
                    Some(p) => format!("Reloaded {}", p.display()),
                    None => "Emptied the session".to_string(),
                };
                CommandOutput::text(format!(
                    "{what} ({}).{}",
                    duration_text(r.time),
                    warnings_text(session, &r.warnings)
                ))
            }
            Err(e) => CommandOutput::error(e),
        },
        Command::Type(exp) => match session.type_of(&exp) {
            Ok(t) => CommandOutput::text(format!("{exp} : {t}")),
            Err(e) => CommandOutput::error(e),
        },
        Command::MType(m) => match session.module_type(&m) {
            Some(s) => CommandOutput::text(s),
            None => CommandOutput::error(CellError::message(
                ErrorKind::Usage,
                format!("no module named {m} in scope"),
            )),
        },
        Command::Doc(name) => match crate::inspect::lookup(session.scope(), &name) {
            Some(info) => CommandOutput::text(info.text()),
            None => CommandOutput::error(CellError::message(
                ErrorKind::Usage,
                format!("nothing named {name} in scope"),
            )),
        },
        Command::Time(None) => CommandOutput::text(match session.last_cell() {
            Some(c) => {
                let mut text = format!("last cell: {} on {}", c.timing.summary(), c.location);
                if let Some(p) = &c.profile {
                    text.push_str(&format!(
                        "\nkernels: {:.3} ms in {} launches",
                        p.kernel_ms(),
                        p.kernels.iter().map(|k| k.launches).sum::<u64>()
                    ));
                    for k in &p.kernels {
                        text.push_str(&format!("\n  {} ×{}: {:.3} ms", k.name, k.launches, k.ms));
                    }
                }
                text
            }
            None => "no cell has run yet".to_string(),
        }),
        Command::Time(Some(on)) => {
            session.show_time = on;
            CommandOutput::text(format!("timing {}", if on { "on" } else { "off" }))
        }
        Command::Unsafe(on) => {
            if let Some(on) = on {
                session.set_unsafe(on);
            }
            CommandOutput::text(if session.options().unsafe_checks {
                "run-time checks are off in compiled cells (results of a failing check are undefined)"
            } else {
                "run-time checks are on: an out-of-bounds index or a division by zero is an error"
            })
        }
        Command::Gpus(n) => {
            if n.is_some() {
                session.set_gpus(n);
            }
            let probe = probe_gpus(session.options().base.face.no_gpu);
            let mut text = format!("GPUs visible: {}", probe.count);
            if let Some(r) = &probe.reason {
                text.push_str(&format!(" ({r})"));
            }
            text.push_str(&format!(
                "\nGPUs requested: {}",
                match session.options().gpus {
                    Some(n) => n.to_string(),
                    None => "all".to_string(),
                }
            ));
            text.push_str(&placement_text(session));
            let residents = session.residents();
            if !residents.is_empty() {
                text.push_str("\nresident: ");
                text.push_str(
                    &residents
                        .iter()
                        .map(|(n, t)| format!("{n} : {t}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            CommandOutput::text(text)
        }
        Command::Backend(b) => {
            if let Some(b) = b {
                session.set_backend(b);
            }
            CommandOutput::text(format!(
                "backend: {}{}",
                session.options().backend,
                placement_text(session)
            ))
        }
        Command::Kernels => match session.last_kernels() {
            Ok(t) if !session.placement().device.is_compiled() => CommandOutput::text(format!(
                "cells run on {}: no GPU runs and no kernel is compiled. The CUDA that \
                 {marker}backend cuda would compile for the last cell:\n{}",
                session.location(),
                t.trim_end()
            )),
            Ok(t) => CommandOutput::text(t.trim_end()),
            Err(e) => CommandOutput::error(e),
        },
        Command::Ir(stage) => {
            let name = stage.as_deref().unwrap_or("kernels");
            let Some(stage) = futhark_db::IrStage::from_name(name) else {
                return CommandOutput::error(CellError::message(
                    ErrorKind::Usage,
                    format!("unknown IR stage {name} (expected soacs, fused or kernels)"),
                ));
            };
            match session.last_ir(stage) {
                Ok(t) => CommandOutput::text(t.trim_end()),
                Err(e) => CommandOutput::error(e),
            }
        }
        Command::Profile => CommandOutput::text(match session.last_cell() {
            Some(c) => {
                let mut text = format!(
                    "cell [{}] on {}: {}",
                    c.number,
                    c.location,
                    c.timing.summary()
                );
                if let Some(n) = &c.note {
                    text.push_str(&format!("\n{n}"));
                }
                match &c.profile {
                    Some(p) => {
                        text.push('\n');
                        text.push_str(&p.table());
                    }
                    None => text.push_str("\nno kernels: the cell ran on the interpreter"),
                }
                text
            }
            None => "no cell has run yet".to_string(),
        }),
        Command::Compare(cells) => compare(session, cells),
        Command::Help => CommandOutput::text(help(marker)),
        Command::Quit => CommandOutput {
            quit: true,
            ..CommandOutput::default()
        },
    }
}

/// `:compare`: cell B against cell A, wall time, run time and kernel time.
fn compare(session: &Session, cells: Option<(usize, usize)>) -> CommandOutput {
    let ran = session.ran_cells();
    let pick = |n: usize| ran.iter().rev().find(|c| c.number == n);
    let (a, b) = match cells {
        None => match ran {
            [.., a, b] => (a, b),
            _ => {
                return CommandOutput::error(CellError::message(
                    ErrorKind::Usage,
                    "fewer than two expression cells have run",
                ));
            }
        },
        Some((x, y)) => match (pick(x), pick(y)) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return CommandOutput::error(CellError::message(
                    ErrorKind::Usage,
                    format!("no expression cell [{x}] and [{y}] ran"),
                ));
            }
        },
    };
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let row = |what: &str, x: f64, y: f64| {
        let ratio = if y > 0.0 {
            format!("{:.2}x", x / y)
        } else {
            "-".to_string()
        };
        format!("{what:<14} {x:>12.3} {y:>12.3} {ratio:>9}\n")
    };
    let mut text = format!(
        "[{}] on {}\n[{}] on {}\n{:<14} {:>12} {:>12} {:>9}\n",
        a.number,
        a.location,
        b.number,
        b.location,
        "ms",
        format!("[{}]", a.number),
        format!("[{}]", b.number),
        "speedup"
    );
    text.push_str(&row("cell", ms(a.timing.total), ms(b.timing.total)));
    text.push_str(&row("run", ms(a.timing.eval), ms(b.timing.eval)));
    if let (Some(p), Some(q)) = (&a.profile, &b.profile) {
        text.push_str(&row("kernels, sum", p.kernel_ms(), q.kernel_ms()));
        text.push_str(&row("busiest GPU", p.busiest_ms(), q.busiest_ms()));
    } else {
        text.push_str("no kernel times: ");
        text.push_str(match (&a.profile, &b.profile) {
            (None, None) => "neither cell ran compiled kernels (no GPU ran)",
            _ => "only one of the cells ran compiled kernels",
        });
    }
    CommandOutput::text(text.trim_end())
}

fn placement_text(session: &Session) -> String {
    let p = session.placement();
    let mut s = format!("\ncells run on: {}", session.location());
    if let Some(n) = &p.note {
        s.push_str(&format!("\nnote: {n}"));
    }
    s
}

fn warnings_text(session: &Session, warnings: &[futhark_syntax::Diagnostic]) -> String {
    if warnings.is_empty() {
        String::new()
    } else {
        format!("\n{}", session.render(warnings, false).trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_prefixes_resolve() {
        assert_eq!(parse("l x.fut", ':'), Ok(Command::Load("x.fut".into())));
        assert_eq!(parse("mt M", ':'), Ok(Command::MType("M".into())));
        assert_eq!(parse("q", ':'), Ok(Command::Quit));
        assert_eq!(parse("ti on", ':'), Ok(Command::Time(Some(true))));
        assert_eq!(parse("k", ':'), Ok(Command::Kernels));
    }

    #[test]
    fn ambiguous_prefixes_prefer_reference_commands() {
        assert_eq!(parse("t 1", ':'), Ok(Command::Type("1".into())));
        assert!(parse("xyz", ':').is_err());
    }

    #[test]
    fn errors_name_commands_with_the_faces_marker() {
        let e = parse("type", '%').expect_err("needs an expression");
        assert_eq!(e.summary, "%type needs an expression");
        let e = parse("xyz", '%').expect_err("unknown");
        assert_eq!(e.summary, "unknown command %xyz; try %help");
    }

    #[test]
    fn arguments_are_checked() {
        assert!(parse("load", ':').is_err());
        assert!(parse("gpus many", ':').is_err());
        assert_eq!(parse("gpus 2", ':'), Ok(Command::Gpus(Some(2))));
        assert_eq!(
            parse("backend interp", ':'),
            Ok(Command::Backend(Some(BackendChoice::Interp)))
        );
    }
}
