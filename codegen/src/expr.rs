//! C expressions of the spec: the code conditions of `returns[].when` and the bounds of `range`.
//!
//! A small Pratt parser for the C subset the spec uses: identifiers, integer literals, `nullptr`
//! (or `NULL`), unary `! ~ - * &`, the binary operators of C from `*` down to `||`, member access
//! (`a.b`, `a->b`), indexing (`a[i]`) and function-call-like forms (`sizeof(x)`, `ZE_BIT(3)`).
//! [`Expr`]'s `Display` prints the canonical C form, which parses back to the same tree.

use std::fmt;

/// A prefix operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `!x`
    Not,
    /// `-x`
    Neg,
    /// `~x`
    BitNot,
    /// `*x`
    Deref,
    /// `&x`
    AddrOf,
}

impl UnOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Not => "!",
            UnOp::Neg => "-",
            UnOp::BitNot => "~",
            UnOp::Deref => "*",
            UnOp::AddrOf => "&",
        }
    }
}

/// An infix operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// C precedence, higher binds tighter (all left-associative).
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::BitAnd => 5,
            BinOp::BitXor => 4,
            BinOp::BitOr => 3,
            BinOp::And => 2,
            BinOp::Or => 1,
        }
    }

    fn from_token(t: &Tok) -> Option<BinOp> {
        let Tok::Punct(p) = t else { return None };
        Some(match *p {
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "&" => BinOp::BitAnd,
            "^" => BinOp::BitXor,
            "|" => BinOp::BitOr,
            "&&" => BinOp::And,
            "||" => BinOp::Or,
            _ => return None,
        })
    }

    /// Operators whose operands we parenthesise when they are themselves binary, as
    /// `-Wparentheses` suggests (`(a == b) && c`, `x & (y - 1)`, `a << (b + c)`).
    fn groups_operands(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::BitAnd | BinOp::BitXor | BinOp::BitOr | BinOp::Shl | BinOp::Shr)
    }
}

/// A parsed C expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    Ident(String),
    Int(i64),
    /// `nullptr` (also accepted: `NULL`).
    Null,
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `base.name` or, when the flag is true, `base->name`.
    Member(Box<Expr>, String, bool),
    /// `base[index]`
    Index(Box<Expr>, Box<Expr>),
    /// `name(args, ...)`: `sizeof(x)` or a function-like macro.
    Call(String, Vec<Expr>),
}

impl Expr {
    /// The root identifiers the expression refers to, each once, in order of appearance:
    /// `desc->size` gives `desc`, `a[i].b` gives `a` and `i`. Member names and the names of
    /// calls (`sizeof`, macros) are not included; see [`Expr::calls`].
    pub fn idents(&self) -> Vec<&str> {
        let mut out = vec![];
        self.walk(&mut |e| {
            if let Expr::Ident(n) = e {
                if !out.contains(&n.as_str()) {
                    out.push(n.as_str());
                }
            }
        });
        out
    }

    /// Names of the function-like forms used (`sizeof`, `ZE_BIT`), each once.
    pub fn calls(&self) -> Vec<&str> {
        let mut out = vec![];
        self.walk(&mut |e| {
            if let Expr::Call(n, _) = e {
                if !out.contains(&n.as_str()) {
                    out.push(n.as_str());
                }
            }
        });
        out
    }

    fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Ident(_) | Expr::Int(_) | Expr::Null => {}
            Expr::Unary(_, x) | Expr::Member(x, _, _) => x.walk(f),
            Expr::Binary(_, a, b) | Expr::Index(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.walk(f)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Display: canonical C

/// Whether `child`, an operand of binary `parent`, is printed in parentheses.
fn paren_operand(parent: BinOp, child: &Expr, right: bool) -> bool {
    let Expr::Binary(op, _, _) = child else { return false };
    let (pp, cp) = (parent.precedence(), op.precedence());
    if cp < pp || (cp == pp && right) {
        return true; // needed for the tree to parse back
    }
    if cp == pp {
        return false; // left operand at the same level: `a - b + c`
    }
    parent.groups_operands() && *op != parent
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Ident(n) => f.write_str(n),
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Null => f.write_str("nullptr"),
            Expr::Unary(op, x) => {
                // `- -x` and `& &x` would lex as `--` and `&&`.
                let clash = matches!(
                    (op, &**x),
                    (UnOp::Neg, Expr::Unary(UnOp::Neg, _)) | (UnOp::AddrOf, Expr::Unary(UnOp::AddrOf, _))
                );
                if clash || matches!(**x, Expr::Binary(..)) {
                    write!(f, "{}({x})", op.symbol())
                } else {
                    write!(f, "{}{x}", op.symbol())
                }
            }
            Expr::Binary(op, a, b) => {
                if paren_operand(*op, a, false) {
                    write!(f, "({a})")?;
                } else {
                    write!(f, "{a}")?;
                }
                write!(f, " {} ", op.symbol())?;
                if paren_operand(*op, b, true) {
                    write!(f, "({b})")
                } else {
                    write!(f, "{b}")
                }
            }
            Expr::Member(base, name, arrow) => {
                write_postfix_base(f, base)?;
                write!(f, "{}{name}", if *arrow { "->" } else { "." })
            }
            Expr::Index(base, index) => {
                write_postfix_base(f, base)?;
                write!(f, "[{index}]")
            }
            Expr::Call(name, args) => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

fn write_postfix_base(f: &mut fmt::Formatter<'_>, base: &Expr) -> fmt::Result {
    match base {
        Expr::Unary(..) | Expr::Binary(..) => write!(f, "({base})"),
        _ => write!(f, "{base}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Punct(&'static str),
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(n) => write!(f, "`{n}`"),
            Tok::Int(v) => write!(f, "`{v}`"),
            Tok::Punct(p) => write!(f, "`{p}`"),
            Tok::End => f.write_str("end of input"),
        }
    }
}

/// Punctuators, longest first.
const PUNCTS: [&str; 29] = [
    "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "[", "]", ".", ",", "!", "~", "*", "/", "%", "+",
    "-", "<", ">", "&", "^", "|", "?", ":",
];

/// Tokens with their 1-based column (in characters).
fn lex(s: &str) -> Result<Vec<(Tok, usize)>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), col));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            if i < chars.len() && chars[i] == '.' {
                return Err(format!("column {col}: floating-point literals are not supported"));
            }
            let text: String = chars[start..i].iter().collect();
            out.push((Tok::Int(int_literal(&text).map_err(|e| format!("column {col}: {e}"))?), col));
        } else if let Some(p) = PUNCTS.iter().find(|p| chars[i..].starts_with(&p.chars().collect::<Vec<_>>())) {
            out.push((Tok::Punct(p), col));
            i += p.len();
        } else {
            return Err(format!("column {col}: unexpected character `{c}`"));
        }
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}

/// A C integer literal: decimal, `0x` hex, `0` octal, with optional `u`/`l` suffixes.
fn int_literal(text: &str) -> Result<i64, String> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    let v = u64::from_str_radix(body, radix).map_err(|_| format!("invalid integer literal `{text}`"))?;
    i64::try_from(v).map_err(|_| format!("integer literal `{text}` does not fit in 64-bit signed"))
}

// ---------------------------------------------------------------------------------------------
// Parser

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn col(&self) -> usize {
        self.toks[self.pos].1
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("column {}: expected {what}, found {}", self.col(), self.peek()))
    }

    fn expect(&mut self, p: &'static str) -> Result<(), String> {
        if *self.peek() == Tok::Punct(p) {
            self.next();
            Ok(())
        } else {
            self.err(&format!("`{p}`"))
        }
    }

    /// Parses an expression whose binary operators bind tighter than `min_bp`.
    fn expr(&mut self, min_bp: u8) -> Result<Expr, String> {
        let mut lhs = self.prefix()?;
        while let Some(op) = BinOp::from_token(self.peek()) {
            let bp = op.precedence();
            if bp <= min_bp {
                break;
            }
            self.next();
            let rhs = self.expr(bp)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn prefix(&mut self) -> Result<Expr, String> {
        let op = match self.peek() {
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.next();
            let x = self.prefix()?;
            return Ok(Expr::Unary(op, Box::new(x)));
        }
        let atom = self.atom()?;
        self.postfix(atom)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek().clone() {
            Tok::Int(v) => {
                self.next();
                Ok(Expr::Int(v))
            }
            Tok::Ident(n) => {
                self.next();
                if n == "nullptr" || n == "NULL" {
                    return Ok(Expr::Null);
                }
                if *self.peek() == Tok::Punct("(") {
                    self.next();
                    let mut args = vec![];
                    if *self.peek() != Tok::Punct(")") {
                        loop {
                            args.push(self.expr(0)?);
                            if *self.peek() == Tok::Punct(",") {
                                self.next();
                                continue;
                            }
                            break;
                        }
                    }
                    self.expect(")")?;
                    return Ok(Expr::Call(n, args));
                }
                Ok(Expr::Ident(n))
            }
            Tok::Punct("(") => {
                self.next();
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            _ => self.err("an expression"),
        }
    }

    fn postfix(&mut self, mut e: Expr) -> Result<Expr, String> {
        loop {
            match self.peek() {
                Tok::Punct(p @ ("." | "->")) => {
                    let arrow = *p == "->";
                    self.next();
                    let Tok::Ident(n) = self.peek().clone() else { return self.err("a member name") };
                    self.next();
                    e = Expr::Member(Box::new(e), n, arrow);
                }
                Tok::Punct("[") => {
                    self.next();
                    let i = self.expr(0)?;
                    self.expect("]")?;
                    e = Expr::Index(Box::new(e), Box::new(i));
                }
                Tok::Punct("(") => return self.err("an operator (only a name can be called)"),
                _ => return Ok(e),
            }
        }
    }
}

/// Parses one C expression. Errors name the 1-based column: `column 7: expected ...`.
pub fn parse(s: &str) -> Result<Expr, String> {
    let mut p = Parser { toks: lex(s)?, pos: 0 };
    let e = p.expr(0)?;
    if *p.peek() == Tok::Punct("?") {
        return Err(format!("column {}: the conditional operator `?:` is not supported", p.col()));
    }
    if *p.peek() != Tok::End {
        return p.err("an operator or end of input");
    }
    Ok(e)
}
