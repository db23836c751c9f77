//! SOACs with dual lambdas: a map, reduction, scan, scatter or histogram over values and
//! their tangents.

use futhark_ir::soacs::{Body, Exp, Lambda, Name, Soac, Stm, SubExp};

use crate::error::{LResult, LowerError};

use super::Jvp;

impl Jvp<'_, '_> {
    /// Tangent arrays of SOAC inputs (materialised).
    fn input_tangents(&mut self, arrs: &[Name], out: &mut Vec<Stm>) -> LResult<Vec<Name>> {
        let mut ts = Vec::new();
        for a in arrs {
            match self.tangent_or_zero(&SubExp::var(a), out) {
                SubExp::Var(v) => ts.push(v),
                SubExp::Const(_) => return Err(LowerError::internal(None, "tangent of an array")),
            }
        }
        Ok(ts)
    }

    #[allow(clippy::type_complexity)]
    fn dual_redomap(
        &mut self,
        op: &Lambda,
        nes: &[SubExp],
        map: &Lambda,
        arrs: &[Name],
        out: &mut Vec<Stm>,
    ) -> LResult<(Lambda, Vec<SubExp>, Lambda, Vec<Name>)> {
        let tarrs = self.input_tangents(arrs, out)?;
        let map = self.lambda(map)?;
        let op = self.operator(op)?;
        let mut nes2 = nes.to_vec();
        for n in nes {
            let ty = self.ty(n);
            let z = self.zero(&ty, out);
            nes2.push(z);
        }
        let mut arrs = arrs.to_vec();
        arrs.extend(tarrs);
        Ok((op, nes2, map, arrs))
    }

    pub(super) fn soac(&mut self, s: &Stm, soac: &Soac, out: &mut Vec<Stm>) -> LResult<()> {
        let tps = self.tangent_pat(&s.pat);
        let mut pat = s.pat.clone();
        pat.elems.extend(tps.iter().cloned());
        let exp = match soac {
            Soac::Map { w, lam, arrs } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let lam = self.lambda(lam)?;
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                Soac::Map {
                    w: w.clone(),
                    lam,
                    arrs,
                }
            }
            Soac::Reduce {
                w,
                comm,
                op,
                nes,
                map,
                arrs,
            } => {
                let (op, nes, map, arrs) = self.dual_redomap(op, nes, map, arrs, out)?;
                Soac::Reduce {
                    w: w.clone(),
                    comm: *comm,
                    op,
                    nes,
                    map,
                    arrs,
                }
            }
            Soac::Scan {
                w,
                op,
                nes,
                map,
                arrs,
            } => {
                let (op, nes, map, arrs) = self.dual_redomap(op, nes, map, arrs, out)?;
                Soac::Scan {
                    w: w.clone(),
                    op,
                    nes,
                    map,
                    arrs,
                }
            }
            Soac::Scatter {
                w,
                dests,
                ranks,
                map,
                arrs,
            } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let tdests = self.input_tangents(dests, out)?;
                let d = self.lambda(map)?;
                // Results: for each dest its indices then value; then the tangents of all.
                let n = map.body.result.len();
                let (prim, tans) = d.body.result.split_at(n);
                let mut result = prim.to_vec();
                let mut ret = d.ret[..n].to_vec();
                let mut k = 0;
                for r in ranks {
                    result.extend(prim[k..k + r].iter().cloned());
                    ret.extend(d.ret[k..k + r].iter().cloned());
                    result.push(tans[k + r].clone());
                    ret.push(d.ret[n + k + r].clone());
                    k += r + 1;
                }
                let map = Lambda {
                    params: d.params,
                    body: Body::new(d.body.stms, result),
                    ret,
                };
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                let mut dests = dests.clone();
                dests.extend(tdests);
                let mut ranks = ranks.clone();
                ranks.extend(ranks.clone());
                Soac::Scatter {
                    w: w.clone(),
                    dests,
                    ranks,
                    map,
                    arrs,
                }
            }
            Soac::Hist {
                w,
                dests,
                rank,
                op,
                nes,
                map,
                arrs,
            } => {
                let tarrs = self.input_tangents(arrs, out)?;
                let tdests = self.input_tangents(dests, out)?;
                let d = self.lambda(map)?;
                let n = map.body.result.len();
                let (prim, tans) = d.body.result.split_at(n);
                let mut result = prim.to_vec();
                result.extend(tans[*rank..].iter().cloned());
                let mut ret = d.ret[..n].to_vec();
                ret.extend(d.ret[n + rank..].iter().cloned());
                let map = Lambda {
                    params: d.params,
                    body: Body::new(d.body.stms, result),
                    ret,
                };
                let op = self.operator(op)?;
                let mut nes2 = nes.clone();
                for ne in nes {
                    let ty = self.ty(ne);
                    let z = self.zero(&ty, out);
                    nes2.push(z);
                }
                let mut arrs = arrs.clone();
                arrs.extend(tarrs);
                let mut dests = dests.clone();
                dests.extend(tdests);
                Soac::Hist {
                    w: w.clone(),
                    dests,
                    rank: *rank,
                    op,
                    nes: nes2,
                    map,
                    arrs,
                }
            }
        };
        out.push(Stm::new(pat, Exp::Soac(exp)));
        self.set_tangents(&s.pat, &tps);
        Ok(())
    }
}
