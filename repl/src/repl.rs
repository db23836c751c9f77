//! The read–evaluate–print loop: prompts, commands, printing results and errors, Ctrl-C.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futhark_session::commands::{self, Command};
use futhark_session::{CellError, CellOutcome, Evaluated, Options, Session};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

use crate::Args;
use crate::editor::ReplHelper;

/// Errors that end the REPL before it starts.
#[derive(Debug, thiserror::Error)]
pub enum ReplError {
    #[error("{0}")]
    Session(#[from] CellError),
    #[error("line editor: {0}")]
    Editor(#[from] ReadlineError),
}

/// What the loop prints to, and how.
struct Printer {
    color: bool,
}

impl Printer {
    fn error(&self, session: &Session, e: &CellError) {
        println!("{}", session.render_error(e, self.color));
    }

    fn outcome(&self, session: &Session, out: &CellOutcome) {
        if !out.warnings.is_empty() {
            print!("{}", session.render(&out.warnings, self.color));
        }
        if let Some(note) = &out.note {
            // A fallback to the interpreter: said on stderr, so transcripts stay the same.
            let _ = std::io::stdout().flush();
            eprintln!("note: {note}");
        }
        match &out.result {
            Ok(Evaluated::Value(v)) => {
                println!("{}", v.text.text);
                if v.text.abbreviated {
                    let shape: String = v.value.shape().iter().map(|d| format!("[{d}]")).collect();
                    println!("-- abbreviated: a {shape} array of type {}", v.ty);
                }
            }
            Ok(_) => {}
            Err(e) => self.error(session, e),
        }
        if session.show_time && out.result.is_ok() {
            let mut line = format!("-- {} on {}", out.timing.summary(), out.location);
            if let Some(p) = out.profile.as_ref().filter(|p| !p.kernels.is_empty()) {
                line.push_str(&format!(
                    ", kernels {:.3} ms in {} launches",
                    p.kernel_ms(),
                    p.kernels.iter().map(|k| k.launches).sum::<u64>()
                ));
            }
            println!("{line}");
        }
    }
}

/// Runs the REPL until `:quit` or end of input.
pub fn run(args: Args) -> Result<ExitCode, ReplError> {
    let interactive = std::io::stdin().is_terminal();
    // https://no-color.org: a set, non-empty NO_COLOR turns colours off, as --no-color does.
    let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = !args.no_color && !no_color_env && std::io::stdout().is_terminal();
    // The environment's options, read once here at the edge (a malformed FUTHARK_GPUS is
    // ignored: sessions open the GPUs `--gpus`/`:gpus` ask for, else all).
    let (base, _) = futhark_options::from_env();
    let history = args
        .history
        .clone()
        .or_else(|| base.face.repl_history.clone())
        .or_else(default_history);
    let session = Session::new(Options {
        backend: args.backend,
        gpus: args.gpus,
        base,
        ..Options::default()
    })?;
    let session = Rc::new(RefCell::new(session));
    let printer = Printer { color };
    if interactive {
        println!("futhark-rs REPL. Type :help for the commands, :quit or Ctrl-D to leave.");
    }
    if let Some(note) = &session.borrow().placement().note {
        // Keep stdout to what a transcript compares when input is piped.
        if interactive {
            println!("note: {note}");
        } else {
            eprintln!("note: {note}");
        }
    }
    if let Some(file) = &args.file {
        let mut s = session.borrow_mut();
        if let Err(e) = s.load(file) {
            printer.error(&s, &e);
        }
    }
    let running = Arc::new(AtomicBool::new(false));
    install_ctrl_c(&session.borrow(), running.clone(), interactive);

    let config = Config::builder()
        .auto_add_history(true)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut editor: Editor<ReplHelper, FileHistory> = Editor::with_config(config)?;
    editor.set_helper(Some(ReplHelper {
        session: session.clone(),
        color,
        hinter: rustyline::hint::HistoryHinter::new(),
    }));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }

    // Said once, not after every entry.
    let mut history_failed = false;
    loop {
        let prompt = format!("[{}]> ", session.borrow().next_cell());
        if !interactive {
            // rustyline prints no prompt when reading a pipe; the reference REPL does.
            print!("{prompt}");
            let _ = std::io::stdout().flush();
        }
        let input = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        let text = input.trim();
        if text.is_empty() {
            continue;
        }
        // Appended now, not only at a clean exit: a crash or a kill keeps what was typed.
        if let Some(h) = &history
            && let Err(e) = editor.append_history(h)
            && !history_failed
        {
            history_failed = true;
            eprintln!("note: cannot write the history to {}: {e}", h.display());
        }
        let mut s = session.borrow_mut();
        if let Some(rest) = text.strip_prefix(':') {
            s.skip_cell();
            let out = match commands::parse(rest, ':') {
                Ok(cmd) => run_command(&mut s, cmd),
                Err(e) => {
                    printer.error(&s, &e);
                    continue;
                }
            };
            if !out.text.is_empty() {
                println!("{}", out.text);
            }
            if let Some(e) = &out.error {
                printer.error(&s, e);
            }
            if out.quit {
                break;
            }
            continue;
        }
        running.store(true, Ordering::SeqCst);
        let out = s.eval(&input, &mut |line| eprintln!("{line}"));
        running.store(false, Ordering::SeqCst);
        printer.outcome(&s, &out);
        let _ = std::io::stdout().flush();
    }
    println!("Leaving 'futhark repl'.");
    Ok(ExitCode::SUCCESS)
}

fn run_command(session: &mut Session, cmd: Command) -> futhark_session::CommandOutput {
    commands::run(session, cmd, ':')
}

/// `~/.futhark-repl-history` (`FUTHARK_REPL_HISTORY`, through the options, comes first).
fn default_history() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".futhark-repl-history"))
}

/// Ctrl-C stops the running cell. At the prompt rustyline reads it as a key (and the line
/// is dropped); with piped input and nothing running it ends the program.
fn install_ctrl_c(session: &Session, running: Arc<AtomicBool>, interactive: bool) {
    let stop = session.interrupter();
    let _ = ctrlc::set_handler(move || {
        if running.load(Ordering::SeqCst) {
            stop.interrupt();
        } else if !interactive {
            std::process::exit(130);
        }
    });
}
