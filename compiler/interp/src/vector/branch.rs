//! Conditionals over lanes: both branches under masks with a per-lane select, or the
//! lanes split between the branches and merged.

use std::rc::Rc;

use futhark_values::Buffer;

use super::lanes::{Var, merge, prim_lanes, subset, walk_vars};
use super::seq::plain;

use crate::eval::unit;
use crate::ir::Exp;

use super::*;

impl Cx<'_> {
    pub(super) fn cond(&mut self, c: V, t: &Exp, f: &Exp, vf: &mut VFrame<'_>) -> VResult<V> {
        let c = match plain(c, vf.n) {
            V::Seq(_) | V::Wrap(..) | V::Aff(_) | V::Fun(_) => return Err(Fail::No),
            V::Uni(c) => {
                return match c.as_bool() {
                    Some(true) => self.eval(t, vf),
                    Some(false) => self.eval(f, vf),
                    None => Err(Fail::Retry),
                };
            }
            V::Lanes(c) => c,
        };
        let (buf, off, n) = prim_lanes(&c)?;
        let Buffer::Bool(bits) = &**buf else {
            return Err(Fail::Retry);
        };
        let bits = &bits[off..off + n];
        // Only lanes that count decide whether a branch is needed at all.
        let (any_yes, any_no) = match vf.mask.as_deref() {
            Some(m) => (
                bits.iter().zip(m).any(|(&b, &a)| a && b),
                bits.iter().zip(m).any(|(&b, &a)| a && !b),
            ),
            None => (bits.contains(&true), bits.contains(&false)),
        };
        if !any_no {
            return self.eval(t, vf);
        }
        if !any_yes {
            return self.eval(f, vf);
        }
        match self.speculate(bits, t, f, vf) {
            Err(Fail::Retry) => {}
            r => return r,
        }
        let (mut yes, mut no) = (Vec::new(), Vec::new());
        for (i, &b) in bits.iter().enumerate() {
            if b {
                yes.push(i);
            } else {
                no.push(i);
            }
        }
        let vt = self.on_lanes(t, &yes, vf)?;
        let vfv = self.on_lanes(f, &no, vf)?;
        let lt = self.lanes(vt, yes.len())?;
        let lf = self.lanes(vfv, no.len())?;
        merge(n, &yes, &lt, &no, &lf).map(V::Lanes).ok_or(Fail::No)
    }

    /// Evaluates both branches of a conditional on all lanes, each under the mask of the lanes
    /// that take it, and selects per lane: no gathering of lanes and no merging. Evaluation
    /// is pure, so the only risk is a failure in a lane that does not count; such failures
    /// come back as `Retry` and the caller splits the lanes instead.
    fn speculate(&mut self, bits: &[bool], t: &Exp, f: &Exp, vf: &mut VFrame<'_>) -> VResult<V> {
        let outer = vf.mask.clone();
        let under = |want: bool| -> Rc<[bool]> {
            match outer.as_deref() {
                Some(m) => bits.iter().zip(m).map(|(&b, &a)| a && b == want).collect(),
                None => bits.iter().map(|&b| b == want).collect(),
            }
        };
        vf.mask = Some(under(true));
        let vt = self.eval(t, vf);
        let vt = vt.and_then(|vt| {
            vf.mask = Some(under(false));
            Ok((vt, self.eval(f, vf)?))
        });
        vf.mask = outer;
        let (vt, vfv) = vt?;
        let n = bits.len();
        let (lt, lf) = (self.lanes(vt, n)?, self.lanes(vfv, n)?);
        match lanes::select_owned(bits, lt, lf) {
            Some(v) => Ok(V::Lanes(v)),
            // Shapes that `select` does not handle: the exact split path.
            None => Err(Fail::Retry),
        }
    }

    /// Evaluates `e` on a subset of the lanes (gathering only the lane slots it reads).
    fn on_lanes(&mut self, e: &Exp, which: &[usize], vf: &VFrame<'_>) -> VResult<V> {
        let mut used = vec![false; vf.slots.len()];
        let mut used_captured = vec![false; vf.cenv.map_or(0, |c| c.len())];
        walk_vars(e, &mut |v| {
            let (s, used) = match v {
                Var::Local(s) => (s, &mut used),
                Var::Captured(s) => (s, &mut used_captured),
            };
            if let Some(u) = used.get_mut(s as usize) {
                *u = true;
            }
        });
        let mut slots = Vec::with_capacity(vf.slots.len());
        for (k, s) in vf.slots.iter().enumerate() {
            slots.push(match s {
                Some(V::Uni(_)) | None => s.clone(),
                Some(v) if used[k] => Some(subset(v, which, vf.n)?),
                Some(_) => None,
            });
        }
        let cenv = match vf.cenv {
            None => None,
            Some(c) => {
                let mut out = Vec::with_capacity(c.len());
                for (k, v) in c.iter().enumerate() {
                    out.push(match v {
                        V::Uni(_) => v.clone(),
                        v if used_captured[k] => subset(v, which, vf.n)?,
                        _ => V::Uni(unit()),
                    });
                }
                Some(out)
            }
        };
        let mut sub = VFrame {
            slots,
            env: vf.env,
            n: which.len(),
            mask: vf
                .mask
                .as_ref()
                .map(|m| which.iter().map(|&i| m[i]).collect()),
            cenv: cenv.as_deref(),
        };
        self.eval(e, &mut sub)
    }
}
