//! Histograms of vectors combined lane by lane (`reduce_by_index dest (map2 g) ne is vss`,
//! as `hist` into `[k][m]` destinations whose operator is a `map` of a scalar `g` over its
//! parameters) become histograms of scalars: the rows are computed first (a `map`), then a
//! rank-2 `hist` over every (row, lane) pair puts lane `j` of a row with bucket `b` into
//! `dest[b][j]` with `g`. A kernel thread then never holds a vector.
//!
//! Every lane applies the same `g`, so lane 0 of the neutral vector is a neutral element of
//! `g` for all lanes (used only when there is a lane).

use std::collections::HashMap;

use futhark_ir::soacs::{
    BinOp, Body, CmpOp, DimIndex, Exp, ExtType, Lambda, Name, NameSource, Param, Pat, Soac, Stm,
    SubExp, Type,
};
use futhark_ir::types::{PrimType, PrimValue};

/// Rewrites the vector histograms of a host body (at any host depth).
pub fn scalarise_vector_hists(b: &mut Body, types: &HashMap<Name, Type>, ns: &mut NameSource) {
    let stms = std::mem::take(&mut b.stms);
    for mut stm in stms {
        match &mut stm.exp {
            Exp::Soac(soac @ Soac::Hist { .. }) => {
                if let Some(new) = rewrite(&stm.pat, soac, &stm.loc, types, ns) {
                    b.stms.extend(new);
                    continue;
                }
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                scalarise_vector_hists(then_body, types, ns);
                scalarise_vector_hists(else_body, types, ns);
            }
            Exp::Loop { body, .. } => scalarise_vector_hists(body, types, ns),
            _ => {}
        }
        b.stms.push(stm);
    }
}

/// The scalar operator of a vector operator `op` (a `map` over exactly its parameters
/// whose results are the operator's), with its parameters in the operator's order.
fn lane_operator(op: &Lambda) -> Option<Lambda> {
    let [stm] = op.body.stms.as_slice() else {
        return None;
    };
    let Exp::Soac(Soac::Map { lam, arrs, .. }) = &stm.exp else {
        return None;
    };
    let outs: Vec<SubExp> = stm
        .pat
        .elems
        .iter()
        .map(|p| SubExp::Var(p.name.clone()))
        .collect();
    if outs != op.body.result || arrs.len() != op.params.len() || !stm.pat.ctx.is_empty() {
        return None;
    }
    let mut params = Vec::new();
    for p in &op.params {
        let k = arrs.iter().position(|a| a == &p.name)?;
        let lp = lam.params.get(k)?;
        if lp.ty.is_array() || p.ty.rank() != 1 {
            return None;
        }
        params.push(lp.clone());
    }
    Some(Lambda {
        params,
        body: lam.body.clone(),
        ret: lam.ret.clone(),
    })
}

fn rewrite(
    pat: &Pat,
    soac: &Soac,
    loc: &Option<std::sync::Arc<str>>,
    types: &HashMap<Name, Type>,
    ns: &mut NameSource,
) -> Option<Vec<Stm>> {
    let Soac::Hist {
        w,
        dests,
        rank: 1,
        op,
        nes,
        map,
        arrs,
    } = soac
    else {
        return None;
    };
    let g = lane_operator(op)?;
    let dts: Vec<&Type> = dests.iter().map(|d| types.get(d)).collect::<Option<_>>()?;
    if dts.iter().any(|t| t.rank() != 2)
        || map.ret.len() != 1 + dests.len()
        || g.ret.len() != dests.len()
        || map.ret[0] != Type::Prim(PrimType::I64)
        || map.ret[1..].iter().any(|t| t.rank() != 1)
    {
        return None;
    }
    let lanes = dts[0].shape()[1].clone();
    let i64t = Type::Prim(PrimType::I64);
    let bool_t = Type::Prim(PrimType::Bool);
    let mut out = Vec::new();
    let bind = |out: &mut Vec<Stm>, ns: &mut NameSource, base: &str, ty: Type, exp: Exp| {
        let n = ns.fresh(base);
        out.push(Stm::new(Pat::one(&n, ty), exp).at(loc.clone()));
        n
    };
    // The rows and their buckets.
    let mut elems = Vec::new();
    for t in &map.ret {
        elems.push(Param::new(&ns.fresh("vh_rows"), t.array_of(w.clone())));
    }
    let rows: Vec<Name> = elems.iter().map(|p| p.name.clone()).collect();
    out.push(
        Stm::new(
            Pat::new(elems),
            Exp::Soac(Soac::Map {
                w: w.clone(),
                lam: map.clone(),
                arrs: arrs.clone(),
            }),
        )
        .at(loc.clone()),
    );
    // Lane 0 of each neutral vector, when there is a lane.
    let some = bind(
        &mut out,
        ns,
        "vh_lanes",
        bool_t,
        Exp::CmpOp(CmpOp::SLt, SubExp::i64(0), lanes.clone()),
    );
    let mut scalar_nes = Vec::new();
    for (ne, t) in nes.iter().zip(&g.ret) {
        let SubExp::Var(ne) = ne else {
            return None;
        };
        let e = t.elem();
        let then_n = ns.fresh("vh_ne0");
        let then_body = Body::new(
            vec![Stm::new(
                Pat::one(&then_n, t.clone()),
                Exp::Index(ne.clone(), vec![DimIndex::Fix(SubExp::i64(0))]),
            )],
            vec![SubExp::Var(then_n)],
        );
        let zero = SubExp::Const(PrimValue::from_f64(e, 0.0));
        let v = bind(
            &mut out,
            ns,
            "vh_ne",
            t.clone(),
            Exp::If {
                cond: SubExp::Var(some.clone()),
                then_body,
                else_body: Body::new(Vec::new(), vec![zero]),
                ret: vec![ExtType::Prim(e)],
            },
        );
        scalar_nes.push(SubExp::Var(v));
    }
    // Every (row, lane) pair.
    let total = bind(
        &mut out,
        ns,
        "vh_total",
        i64t.clone(),
        Exp::BinOp(BinOp::Mul, w.clone(), lanes.clone()),
    );
    let iota = bind(
        &mut out,
        ns,
        "vh_iota",
        Type::array(PrimType::I64, vec![SubExp::Var(total.clone())]),
        Exp::Iota {
            n: SubExp::Var(total.clone()),
            start: SubExp::i64(0),
            stride: SubExp::i64(1),
            ty: PrimType::I64,
        },
    );
    let q = Param::new(&ns.fresh("vh_q"), i64t.clone());
    let mut body = Vec::new();
    let mut local = |base: &str, ty: Type, exp: Exp| -> Name {
        let n = ns.fresh(base);
        body.push(Stm::new(Pat::one(&n, ty), exp));
        n
    };
    let qv = SubExp::Var(q.name.clone());
    let row = local(
        "vh_row",
        i64t.clone(),
        Exp::BinOp(BinOp::SQuot, qv.clone(), lanes.clone()),
    );
    let lane = local(
        "vh_lane",
        i64t.clone(),
        Exp::BinOp(BinOp::SRem, qv, lanes.clone()),
    );
    let at = |r: &Name| DimIndex::Fix(SubExp::Var(r.clone()));
    let bucket = local(
        "vh_bucket",
        i64t.clone(),
        Exp::Index(rows[0].clone(), vec![at(&row)]),
    );
    let mut result = vec![SubExp::Var(bucket), SubExp::Var(lane.clone())];
    let mut ret = vec![i64t.clone(), i64t];
    for (r, t) in rows[1..].iter().zip(&g.ret) {
        let v = local(
            "vh_val",
            t.clone(),
            Exp::Index(r.clone(), vec![at(&row), at(&lane)]),
        );
        result.push(SubExp::Var(v));
        ret.push(t.clone());
    }
    let hist = Soac::Hist {
        w: SubExp::Var(total),
        dests: dests.clone(),
        rank: 2,
        op: g,
        nes: scalar_nes,
        map: Lambda {
            params: vec![q],
            body: Body::new(body, result),
            ret,
        },
        arrs: vec![iota],
    };
    out.push(Stm::new(pat.clone(), Exp::Soac(hist)).at(loc.clone()));
    Some(out)
}
