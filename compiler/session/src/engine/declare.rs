//! Running a cell's declarations, checked by the database (`futhark_db::check_cell`): running
//! them on the interpreter (or keeping a `let x = e` resident on the compiled path), and
//! making their names visible to later cells.

use std::time::{Duration, Instant};

use futhark_check::CheckedFile;
use futhark_db::CellEnv;
use futhark_syntax::Diagnostic;
use futhark_syntax::FileId;
use futhark_syntax::ast::Dec;

use super::{Placed, Session};
use crate::backend::Device;
use crate::cell_errors::{program_error, split_diagnostics};
use crate::cell_program::{DeclCell, declared_names, let_binding};
use crate::compiled::RunError;
use crate::outcome::{CellError, Timing};
use crate::program;
use crate::spans::Origin;
use crate::worker::Part;

/// Declarations of a cell: their file, their text (a prefix of the cell), how that text
/// relates to the cell the user wrote, their check, and the environment they leave.
pub(super) struct Decl<'a> {
    pub id: FileId,
    pub text: &'a str,
    pub decs: &'a [Dec],
    pub checked: &'a CheckedFile,
    pub env: CellEnv,
    pub origin: Origin,
}

impl Session {
    /// Runs declarations; the names they bound. On error the session is unchanged.
    pub(super) fn declare(
        &mut self,
        d: Decl<'_>,
        on_trace: &mut dyn FnMut(&str),
        timing: &mut Timing,
        warnings: &mut Vec<Diagnostic>,
        ran: &mut Placed,
    ) -> Result<Vec<String>, CellError> {
        let check_start = Instant::now();
        let text = d.text;
        let checked = d.checked;
        split_diagnostics(checked.diagnostics.clone(), warnings)?;
        let hints = program::hints_for(self.ctx, &checked.info, &self.defs);
        timing.check += check_start.elapsed();
        let cell_name = d.origin.name.clone();
        let parts = vec![Part {
            text: text.to_string(),
            file: Some(d.id),
            hints,
            origin: Some(d.origin),
        }];
        let names = declared_names(d.decs);
        // `let x = e` on the compiled path: `e` runs once and `x` stays resident.
        if self.placement.device.is_compiled()
            && let Some((name, layout)) = let_binding(d.decs, &checked.scope)
        {
            let exp = format!("{text}\nin {name}");
            self.last_program = Some(self.cell_program(&exp));
            self.last_exp = exp;
            match self.run_compiled(Some(&layout), &name, false, &cell_name, timing, ran) {
                Ok(_) => {
                    // The interpreter evaluates the `let` when it next runs a cell;
                    // compiled cells take `x` as a parameter, so its text is not kept.
                    self.pending.extend(parts);
                    self.move_to(d.env, checked.scope.clone());
                    self.defs.extend(checked.info.defs.clone());
                    return Ok(names);
                }
                Err(RunError::Program(msg)) => {
                    ran.device = self.placement.device;
                    ran.location = self.location();
                    return Err(program_error(msg));
                }
                // Kept as a declaration, as on the interpreter.
                Err(RunError::Cannot(_)) => {
                    *ran = Placed {
                        device: Device::Interpreter,
                        location: "the interpreter".to_string(),
                        note: None,
                        profile: None,
                    };
                    timing.compile = Duration::ZERO;
                    timing.eval = Duration::ZERO;
                }
            }
        }
        // After cells that ran compiled, declarations wait with them for the next
        // cell that needs the interpreter (they are only definitions until then).
        if self.pending.is_empty() {
            self.run(parts, on_trace, timing)?;
        } else {
            self.pending.extend(parts);
        }
        self.move_to(d.env, checked.scope.clone());
        self.defs.extend(checked.info.defs.clone());
        if let Some(r) = &mut self.runner {
            for n in &names {
                r.forget(n);
            }
        }
        self.decl_texts.push(DeclCell {
            text: text.to_string(),
            names: names.clone(),
        });
        Ok(names)
    }
}
