//! The x loop in chunks of 16 work-items, where an index is made from the x id with a mask,
//! a shift or a division by values known only at launch.
//!
//! A kernel that makes a 2D index from a 1D id (`row = i >> log_n`, `col = i & (n - 1)`, or
//! `i / n` and `i % n`) gives LLVM an address it cannot see as consecutive across work-items:
//! `b[k * n + col]` becomes a gather, and `a[row * n + k]`, the same for every work-item of a
//! row, a gather too. Yet for 16 work-items `base + j` (`j` below 16, `base` a multiple of 16),
//! `(base + j) & m` is `(base & m) + j` wherever `m`'s low four bits are set and `base & m`
//! wherever they are clear (how compilers write `(i >> s) << s`), `(base + j) >> s` is
//! `base >> s` wherever `s` is 4 or more, `(base + j) / d` and `% d` are `base / d` and
//! `base % d + j` wherever `d` is a nonzero multiple of 16, and adding a multiple of 16 (a row
//! times one: `i - (i / n) * n`) keeps the shape.
//!
//! So the x loop runs in chunks of 16 work-items from 0 ([`Lower::chunk_loop`]): an outer loop
//! over the chunks' bases and an inner loop of 16 over a copy of the kernel's blocks in which
//! those operations are computed from the base ([`Lower::tile_op`]). The inner loop is what
//! LLVM vectorizes (as an outer loop where the kernel has loops of its own, `outer.rs`): the
//! row is one value for the whole vector, and the column consecutive. Whether the masks,
//! shifts and divisors qualify is checked once per group, before the loops ([`Check`]), from
//! the kernel's arguments; the group's first x id must be a multiple of 16 too, where the
//! global id is used. Where a check fails, and for the work-items past the last full chunk,
//! the x loop runs as before.
//!
//! Kernels with barriers are left as they are (their segments have loops of their own,
//! `rounds.rs`).

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

use crate::ir::{self, BinOp, Builtin, ConvOp, Op, Ty, UnOp};
use crate::Error;

use super::lower::Lower;

/// Work-items in a chunk.
pub(super) const CHUNK: u64 = 16;

/// The key of the chunk's copy of the blocks (see `Lower::key`).
pub(super) const CHUNK_KEY: u32 = u32::MAX;

/// A value's shape across a chunk's 16 work-items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tile {
    /// `base + j` for work-item `j` of the chunk, `base` a multiple of [`CHUNK`].
    Aligned,
    /// The same for every work-item of the chunk: computed from the base.
    Row,
}

/// What a value known before the loops must satisfy for the chunk's code to be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Check {
    /// Its low four bits are set (a mask that keeps a column).
    LowOnes(ir::Value),
    /// Its low four bits are clear (a mask that keeps a row: `i & (-1 << s)`, which is how
    /// compilers write `(i >> s) << s`).
    LowZeros(ir::Value),
    /// A multiple of [`CHUNK`] (an addend).
    Multiple(ir::Value),
    /// A nonzero multiple of [`CHUNK`] (a divisor).
    Divisor(ir::Value),
    /// A shift amount (wrapped at the shifted type's width, given) of 4 or more.
    Shift(ir::Value, Ty),
    /// The group's first global x id is a multiple of [`CHUNK`].
    GroupStart,
}

/// The chunked x loop of one kernel.
pub(super) struct Plan {
    pub(super) tiles: HashMap<ir::Value, Tile>,
    pub(super) checks: Vec<Check>,
}

/// The plan for kernel `k` (without barriers), whose loads from the argument block `args`
/// (address and type) are read before the loops; `None` where no mask, shift or division of
/// the x id would change shape (nothing to gain).
pub(super) fn plan(k: &ir::Kernel, args: &HashSet<(ir::Value, Ty)>) -> Option<Plan> {
    let mut defs = HashMap::new();
    for i in k.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(r) = i.result {
            defs.insert(r, &i.op);
        }
    }
    let known = Known { k, defs: &defs, args };
    let mut tiles = HashMap::new();
    let mut checks = Vec::new();
    // Values the same across a chunk that are multiples of 16 (a row times a multiple of 16):
    // adding one keeps a value aligned.
    let mut multiples = HashSet::new();
    let mut reshaped = false;
    loop {
        let before = tiles.len() + multiples.len();
        for i in k.blocks.iter().flat_map(|b| &b.insts) {
            let Some(r) = i.result else { continue };
            if tiles.contains_key(&r) || !is_int(k.ty(r)) {
                continue;
            }
            let aligned = |v: &ir::Value| tiles.get(v) == Some(&Tile::Aligned);
            let row = |v: &ir::Value| tiles.get(v) == Some(&Tile::Row);
            let multiple = |v: &ir::Value| multiples.contains(v);
            let mut need = Vec::new();
            let mut ok = |c: Check| match known.decide(c) {
                Some(true) => true,
                Some(false) => false,
                None if known.before_loops(c) => {
                    need.push(c);
                    true
                }
                None => false,
            };
            let mut new_multiple = false;
            let tile = match &i.op {
                // A row times a multiple of 16: not lowered otherwise, but a multiple.
                Op::Bin(BinOp::Mul, x, d) | Op::Bin(BinOp::Mul, d, x) if row(x) && !multiple(&r) && ok(Check::Multiple(*d)) => {
                    new_multiple = true;
                    None
                }
                Op::Bin(BinOp::Shl, x, s) if row(x) && !multiple(&r) && ok(Check::Shift(*s, k.ty(r))) => {
                    new_multiple = true;
                    None
                }
                Op::Builtin(Builtin::LocalId, 0) => Some(Tile::Aligned),
                Op::Builtin(Builtin::GlobalId, 0) if ok(Check::GroupStart) => Some(Tile::Aligned),
                Op::Conv(ConvOp::UResize | ConvOp::SResize, a) if aligned(a) && is_int(k.ty(*a)) => {
                    Some(Tile::Aligned)
                }
                Op::Bin(BinOp::Add, a, m) | Op::Bin(BinOp::Add, m, a) | Op::Bin(BinOp::Sub, a, m)
                    if aligned(a) && !aligned(m) && (multiple(m) || ok(Check::Multiple(*m))) =>
                {
                    Some(Tile::Aligned)
                }
                Op::Bin(BinOp::And, a, m) | Op::Bin(BinOp::And, m, a) if aligned(a) && !aligned(m) => {
                    // A mask made by a left shift keeps high bits (a row); others, low bits.
                    let row = matches!(defs.get(m), Some(Op::Bin(BinOp::Shl, ..)));
                    let row = known.decide(Check::LowZeros(*m)).unwrap_or(row);
                    if row && ok(Check::LowZeros(*m)) {
                        new_multiple = true;
                        Some(Tile::Row)
                    } else if !row && ok(Check::LowOnes(*m)) {
                        Some(Tile::Aligned)
                    } else {
                        None
                    }
                }
                Op::Bin(BinOp::URem, a, d) if aligned(a) && ok(Check::Divisor(*d)) => Some(Tile::Aligned),
                Op::Bin(BinOp::UDiv, a, d) if aligned(a) && ok(Check::Divisor(*d)) => Some(Tile::Row),
                Op::Bin(BinOp::LShr | BinOp::AShr, a, s) if aligned(a) && ok(Check::Shift(*s, k.ty(r))) => {
                    Some(Tile::Row)
                }
                _ => None,
            };
            if new_multiple {
                multiples.insert(r);
            }
            if new_multiple && tile.is_none() {
                for c in need {
                    if !checks.contains(&c) {
                        checks.push(c);
                    }
                }
                continue;
            }
            if let Some(t) = tile {
                reshaped |= matches!(&i.op, Op::Bin(BinOp::And | BinOp::URem | BinOp::UDiv | BinOp::LShr | BinOp::AShr, ..));
                tiles.insert(r, t);
                for c in need {
                    if !checks.contains(&c) {
                        checks.push(c);
                    }
                }
            }
        }
        if tiles.len() + multiples.len() == before {
            break;
        }
    }
    reshaped.then_some(Plan { tiles, checks })
}

/// What is known of a kernel's values before its work-item loops.
struct Known<'a> {
    k: &'a ir::Kernel,
    defs: &'a HashMap<ir::Value, &'a Op>,
    args: &'a HashSet<(ir::Value, Ty)>,
}

impl Known<'_> {
    /// The check's outcome where its value is a constant.
    fn decide(&self, c: Check) -> Option<bool> {
        let low = CHUNK - 1;
        let konst = |v: ir::Value| match self.defs.get(&v) {
            Some(Op::Const(bits)) => Some(bits & mask(self.k.ty(v))),
            _ => None,
        };
        match c {
            Check::LowOnes(v) => konst(v).map(|m| m & low == low),
            Check::Multiple(v) | Check::LowZeros(v) => konst(v).map(|m| m & low == 0),
            Check::Divisor(v) => konst(v).map(|m| m & low == 0 && m != 0),
            Check::Shift(v, t) => konst(v).map(|s| (s & (u64::from(t.bytes()) * 8 - 1)) >= u64::from(CHUNK.trailing_zeros())),
            Check::GroupStart => None,
        }
    }

    /// True when the check's value can be computed before the loops.
    fn before_loops(&self, c: Check) -> bool {
        match c {
            Check::LowOnes(v) | Check::LowZeros(v) | Check::Multiple(v) | Check::Divisor(v) | Check::Shift(v, _) => {
                self.invariant(v, 0)
            }
            Check::GroupStart => true,
        }
    }

    /// True when `v` is made from constants, the group's sizes and ids, and the kernel's
    /// arguments (as loaded before the loops) alone.
    fn invariant(&self, v: ir::Value, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        let inv = |x: &ir::Value| self.invariant(*x, depth + 1);
        match self.defs.get(&v) {
            Some(Op::Const(_)) => true,
            Some(Op::Builtin(b, _)) => group_level(*b),
            Some(Op::Bin(_, a, b) | Op::Cmp(_, a, b)) => inv(a) && inv(b),
            Some(Op::Un(UnOp::Neg | UnOp::Not, a) | Op::Conv(_, a)) => inv(a),
            Some(Op::Select(c, a, b)) => inv(c) && inv(a) && inv(b),
            Some(Op::Load(a)) => self.args.contains(&(*a, self.k.ty(v))),
            _ => false,
        }
    }
}

fn group_level(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::GroupId | Builtin::LocalSize | Builtin::NumGroups | Builtin::GlobalOffset | Builtin::GlobalSize | Builtin::WorkDim
    )
}

fn is_int(t: Ty) -> bool {
    matches!(t, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64)
}

fn mask(t: Ty) -> u64 {
    match t.bytes() {
        8 => u64::MAX,
        n => (1u64 << (n * 8)) - 1,
    }
}

thread_local! {
    static CHUNKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many kernels this thread lowered with a chunked x loop.
pub(crate) fn chunked_on_this_thread() -> u64 {
    CHUNKED.with(|c| c.get())
}

/// The chunk's state while the kernel is lowered.
pub(super) struct Chunk<'ctx> {
    pub(super) plan: Plan,
    /// The first x id of the chunk being run (an `i64` slot).
    pub(super) base: PointerValue<'ctx>,
    /// Every check holds (computed before the loops).
    pub(super) ok: Option<IntValue<'ctx>>,
    /// The copy's entry block, and the inner loop's latch.
    pub(super) body: Option<BasicBlock<'ctx>>,
    pub(super) latch: Option<BasicBlock<'ctx>>,
    /// The chunk's base of each aligned value lowered so far.
    pub(super) bases: HashMap<ir::Value, IntValue<'ctx>>,
    /// Values computed before the loops (the checks').
    hoisted: HashMap<ir::Value, BasicValueEnum<'ctx>>,
}

impl<'ctx> Chunk<'ctx> {
    pub(super) fn new(plan: Plan, base: PointerValue<'ctx>) -> Self {
        CHUNKED.with(|c| c.set(c.get() + 1));
        Chunk { plan, base, ok: None, body: None, latch: None, bases: HashMap::new(), hoisted: HashMap::new() }
    }
}

impl<'ctx> Lower<'_, 'ctx> {
    fn chunk(&mut self) -> &mut Chunk<'ctx> {
        self.chunk.as_mut().expect("a chunked kernel")
    }

    /// Computes whether every check holds, where the builder is (before the loops).
    pub(super) fn chunk_checks(&mut self) -> Result<(), Error> {
        let checks = self.chunk().plan.checks.clone();
        let mut ok = self.cx.bool_type().const_int(1, false);
        let low = |me: &Self, x: IntValue<'ctx>| me.b.build_and(x, x.get_type().const_int(CHUNK - 1, false), "");
        for c in checks {
            let holds = match c {
                Check::LowOnes(v) => {
                    let x = self.hoist(v)?.into_int_value();
                    let l = low(self, x)?;
                    self.b.build_int_compare(IntPredicate::EQ, l, x.get_type().const_int(CHUNK - 1, false), "")?
                }
                Check::Multiple(v) | Check::LowZeros(v) => {
                    let x = self.hoist(v)?.into_int_value();
                    let l = low(self, x)?;
                    self.b.build_int_compare(IntPredicate::EQ, l, x.get_type().const_zero(), "")?
                }
                Check::Divisor(v) => {
                    let x = self.hoist(v)?.into_int_value();
                    let l = low(self, x)?;
                    let m = self.b.build_int_compare(IntPredicate::EQ, l, x.get_type().const_zero(), "")?;
                    let nz = self.b.build_int_compare(IntPredicate::NE, x, x.get_type().const_zero(), "")?;
                    self.b.build_and(m, nz, "")?
                }
                Check::Shift(v, t) => {
                    // As the shift itself reads its amount (`ops::bin`): at the shifted width,
                    // wrapped.
                    let x = self.hoist(v)?.into_int_value();
                    let it = self.lt(t).into_int_type();
                    let x = self.resize(x, it)?;
                    let w = u64::from(it.get_bit_width());
                    let x = self.b.build_and(x, it.const_int(w - 1, false), "")?;
                    let four = it.const_int(u64::from(CHUNK.trailing_zeros()), false);
                    self.b.build_int_compare(IntPredicate::UGE, x, four, "")?
                }
                Check::GroupStart => {
                    let s = self.group_start(0)?;
                    let l = low(self, s)?;
                    self.b.build_int_compare(IntPredicate::EQ, l, self.i64c(0), "")?
                }
            };
            ok = self.b.build_and(ok, holds, "")?;
        }
        self.chunk().ok = Some(ok);
        Ok(())
    }

    /// `v` computed where the builder is, from constants, the group's values and the
    /// arguments loaded before the loops (as [`Known::invariant`] found it can be).
    fn hoist(&mut self, v: ir::Value) -> Result<BasicValueEnum<'ctx>, Error> {
        if let Some(x) = self.chunk().hoisted.get(&v) {
            return Ok(*x);
        }
        let k = self.k;
        let t = k.ty(v);
        let op = *self.defs.get(&v).ok_or_else(|| Error::internal("llvm: a chunk check of an undefined value"))?;
        let x = match op {
            Op::Load(a) => *self.arg_words.get(&(*a, t)).ok_or_else(|| Error::internal("llvm: a chunk check's argument"))?,
            Op::Builtin(b, d) => self.builtin(*b, usize::from(*d))?.into(),
            Op::Const(_) => self.op(Some(t), op)?.ok_or_else(|| Error::internal("llvm: a constant"))?,
            Op::Bin(o, a, b) => {
                let (a, b) = (self.hoist(*a)?, self.hoist(*b)?);
                self.bin(*o, t, a, b)?
            }
            Op::Cmp(c, a, b) => {
                let (a, b) = (self.hoist(*a)?, self.hoist(*b)?);
                self.cmp(*c, a, b)?.into()
            }
            Op::Un(o, a) => {
                let a = self.hoist(*a)?.into_int_value();
                match o {
                    UnOp::Neg => self.b.build_int_neg(a, "")?.into(),
                    UnOp::Not => self.b.build_not(a, "")?.into(),
                    _ => return Err(Error::internal("llvm: a chunk check of that unary operation")),
                }
            }
            Op::Conv(c, a) => {
                let from = k.ty(*a);
                let a = self.hoist(*a)?;
                self.conv(*c, from, t, a)?
            }
            Op::Select(c, a, b) => {
                let c = self.hoist(*c)?.into_int_value();
                let (a, b) = (self.hoist(*a)?, self.hoist(*b)?);
                self.b.build_select(c, a, b, "")?
            }
            _ => return Err(Error::internal("llvm: a chunk check of a value made in the loops")),
        };
        self.chunk().hoisted.insert(v, x);
        Ok(x)
    }

    /// The x loop from `x_init`: chunks of 16 through the chunk's copy while the checks hold
    /// and a full chunk is left, then the rest from `x_head` (the x id's slot holds where to
    /// start). The inner loop's latch is the chunk's `latch`.
    pub(super) fn chunk_loop(&mut self, x_init: BasicBlock<'ctx>, x_head: BasicBlock<'ctx>) -> Result<(), Error> {
        let bb = |me: &Self, n: &str| me.cx.append_basic_block(me.f, n);
        let (c_head, j_init, j_head, j_latch, c_next, rest) =
            (bb(self, "chunk"), bb(self, "j0"), bb(self, "j"), bb(self, "j_next"), bb(self, "chunk_next"), bb(self, "x_rest"));
        let (base, ok, body) = {
            let c = self.chunk();
            (c.base, c.ok.expect("the checks come first"), c.body.expect("the chunk's blocks"))
        };
        let i64t = self.cx.i64_type();
        let lsz = self.g().lsz[0];
        let chunk = self.i64c(CHUNK);
        self.b.position_at_end(x_init);
        self.b.build_store(base, self.i64c(0))?;
        self.b.build_unconditional_branch(c_head)?;
        self.b.position_at_end(c_head);
        let xb = self.b.build_load(i64t, base, "")?.into_int_value();
        let end = self.b.build_int_add(xb, chunk, "")?;
        let full = self.b.build_int_compare(IntPredicate::ULE, end, lsz, "")?;
        let go = self.b.build_and(full, ok, "")?;
        self.b.build_conditional_branch(go, j_init, rest)?;
        self.b.position_at_end(j_init);
        self.b.build_store(self.lid[0], xb)?;
        self.b.build_unconditional_branch(j_head)?;
        self.b.position_at_end(j_head);
        let x = self.b.build_load(i64t, self.lid[0], "")?.into_int_value();
        let xb = self.b.build_load(i64t, base, "")?.into_int_value();
        let end = self.b.build_int_add(xb, chunk, "")?;
        let more = self.b.build_int_compare(IntPredicate::ULT, x, end, "")?;
        self.b.build_conditional_branch(more, body, c_next)?;
        self.b.position_at_end(j_latch);
        let x = self.b.build_load(i64t, self.lid[0], "")?.into_int_value();
        let x = self.b.build_int_add(x, self.i64c(1), "")?;
        self.b.build_store(self.lid[0], x)?;
        self.b.build_unconditional_branch(j_head)?;
        self.b.position_at_end(c_next);
        let xb = self.b.build_load(i64t, base, "")?.into_int_value();
        let xb = self.b.build_int_add(xb, chunk, "")?;
        self.b.build_store(base, xb)?;
        self.b.build_unconditional_branch(c_head)?;
        self.b.position_at_end(rest);
        let xb = self.b.build_load(i64t, base, "")?.into_int_value();
        self.b.build_store(self.lid[0], xb)?;
        self.b.build_unconditional_branch(x_head)?;
        self.chunk().latch = Some(j_latch);
        Ok(())
    }

    /// In the chunk's copy, an operation whose result `r` has a tile shape: computed from the
    /// chunk's base. `None` for the others (lowered as usual).
    pub(super) fn tile_op(&mut self, r: ir::Value, op: &Op) -> Result<Option<BasicValueEnum<'ctx>>, Error> {
        if self.key != CHUNK_KEY {
            return Ok(None);
        }
        let Some(tile) = self.chunk().plan.tiles.get(&r).copied() else {
            return Ok(None);
        };
        let t = self.k.ty(r);
        let it = self.lt(t).into_int_type();
        let i64t = self.cx.i64_type();
        let slot = self.chunk().base;
        let base = |me: &mut Self, a: &ir::Value| -> Result<IntValue<'ctx>, Error> {
            me.chunk().bases.get(a).copied().ok_or_else(|| Error::internal("llvm: a chunk base used before its definition"))
        };
        let b = match op {
            Op::Builtin(Builtin::LocalId, 0) => self.b.build_load(i64t, slot, "")?.into_int_value(),
            Op::Builtin(Builtin::GlobalId, 0) => {
                let xb = self.b.build_load(i64t, slot, "")?.into_int_value();
                let start = self.group_start(0)?;
                self.b.build_int_add(start, xb, "")?
            }
            Op::Conv(c, a) => {
                let from = self.k.ty(*a);
                let a = base(self, a)?;
                self.conv(*c, from, t, a.into())?.into_int_value()
            }
            Op::Bin(o, a, m) => {
                let swap = matches!(o, BinOp::Add | BinOp::And);
                let (x, y) = if swap && self.chunk().bases.contains_key(m) && !self.chunk().bases.contains_key(a) {
                    (*m, *a)
                } else {
                    (*a, *m)
                };
                let xb = base(self, &x)?;
                let y = self.v(y)?;
                self.bin(*o, t, xb.into(), y)?.into_int_value()
            }
            _ => return Ok(None),
        };
        if tile == Tile::Row {
            return Ok(Some(b.into()));
        }
        self.chunk().bases.insert(r, b);
        // The work-item's place in the chunk, in the value's type.
        let x = self.b.build_load(i64t, self.lid[0], "")?.into_int_value();
        let xb = self.b.build_load(i64t, slot, "")?.into_int_value();
        let j = self.b.build_int_sub(x, xb, "")?;
        let j = self.resize(j, it)?;
        Ok(Some(self.b.build_int_add(b, j, "")?.into()))
    }
}
