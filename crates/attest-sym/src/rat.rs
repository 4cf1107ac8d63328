//! [`Q`], the exact rational used everywhere: machine integers while numerator and
//! denominator fit in 64 bits (no allocation: the constants of normal forms are
//! almost always small), a big rational beyond. The representation is canonical
//! (small whenever it fits, lowest terms, positive denominator), so equality and
//! hashing are structural; every operation gives the exact result.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Num, One, Signed, ToPrimitive, Zero};

/// An exact rational number.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Q(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// `n/d` in lowest terms, `d ≥ 1`, `n ≠ i64::MIN` (so `-n` and `|n|` fit).
    Small(i64, i64),
    /// Anything that does not fit `Small`.
    Big(Box<BigRational>),
}

fn gcd_u(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    /// `n/d` from 128-bit parts (`d ≠ 0`), reduced; small when it fits.
    fn from_i128(n: i128, d: i128) -> Q {
        debug_assert!(d != 0);
        let (n, d) = if d < 0 { (n.checked_neg(), d.checked_neg()) } else { (Some(n), Some(d)) };
        let (Some(n), Some(d)) = (n, d) else {
            return Q::from_big(BigRational::new(BigInt::from(n.unwrap_or(i128::MIN)), BigInt::from(d.unwrap_or(1))));
        };
        let g = gcd_u(n.unsigned_abs(), d as u128) as i128;
        let (n, d) = if g > 1 { (n / g, d / g) } else { (n, d) };
        match (i64::try_from(n), i64::try_from(d)) {
            (Ok(n), Ok(d)) if n != i64::MIN => Q(Repr::Small(n, d)),
            _ => Q(Repr::Big(Box::new(BigRational::new_raw(BigInt::from(n), BigInt::from(d))))),
        }
    }

    /// From a big rational (already in lowest terms), small when it fits.
    fn from_big(r: BigRational) -> Q {
        match (r.numer().to_i64(), r.denom().to_i64()) {
            (Some(n), Some(d)) if n != i64::MIN => Q(Repr::Small(n, d)),
            _ => Q(Repr::Big(Box::new(r))),
        }
    }

    fn big(&self) -> std::borrow::Cow<'_, BigRational> {
        match &self.0 {
            Repr::Small(n, d) => std::borrow::Cow::Owned(BigRational::new_raw(BigInt::from(*n), BigInt::from(*d))),
            Repr::Big(b) => std::borrow::Cow::Borrowed(b),
        }
    }

    /// `n/d`, reduced. Panics when `d` is zero, like [`BigRational::new`].
    pub fn new(n: BigInt, d: BigInt) -> Q {
        Q::from_big(BigRational::new(n, d))
    }

    /// `n/d` for parts already in lowest terms with `d > 0`.
    pub fn new_raw(n: BigInt, d: BigInt) -> Q {
        Q::from_big(BigRational::new_raw(n, d))
    }

    /// An integer.
    pub fn from_integer(n: BigInt) -> Q {
        Q::from_big(BigRational::from_integer(n))
    }

    /// A small integer.
    pub fn int(n: i64) -> Q {
        Q::from_i128(i128::from(n), 1)
    }

    /// Numerator and denominator, when both fit in 64 bits (without allocating).
    pub fn small(&self) -> Option<(i64, i64)> {
        match self.0 {
            Repr::Small(n, d) => Some((n, d)),
            Repr::Big(_) => None,
        }
    }

    /// The numerator, when it fits in 64 bits (without allocating).
    pub fn numer_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Small(n, _) => Some(*n),
            Repr::Big(b) => b.numer().to_i64(),
        }
    }

    /// The denominator, when it fits in 64 bits (without allocating).
    pub fn denom_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Small(_, d) => Some(*d),
            Repr::Big(b) => b.denom().to_i64(),
        }
    }

    /// Bits in the larger of numerator and denominator (magnitudes).
    pub fn bits(&self) -> u64 {
        match &self.0 {
            Repr::Small(n, d) => u64::from(64 - n.unsigned_abs().max(d.unsigned_abs()).leading_zeros()),
            Repr::Big(b) => b.numer().bits().max(b.denom().bits()),
        }
    }

    /// The numerator (sign included).
    pub fn numer(&self) -> BigInt {
        match &self.0 {
            Repr::Small(n, _) => BigInt::from(*n),
            Repr::Big(b) => b.numer().clone(),
        }
    }

    /// The denominator (positive).
    pub fn denom(&self) -> BigInt {
        match &self.0 {
            Repr::Small(_, d) => BigInt::from(*d),
            Repr::Big(b) => b.denom().clone(),
        }
    }

    /// Whether the denominator is 1.
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Small(_, d) => *d == 1,
            Repr::Big(b) => b.is_integer(),
        }
    }

    /// `1 / self`. Panics on zero, like [`BigRational::recip`].
    pub fn recip(&self) -> Q {
        match self.0 {
            Repr::Small(n, d) => {
                assert!(n != 0, "reciprocal of zero");
                Q::from_i128(i128::from(d), i128::from(n))
            }
            Repr::Big(ref b) => Q::from_big(b.recip()),
        }
    }

    /// The greatest integer ≤ self.
    pub fn floor(&self) -> Q {
        match self.0 {
            Repr::Small(n, d) => Q::int(Integer::div_floor(&n, &d)),
            Repr::Big(ref b) => Q::from_big(b.floor()),
        }
    }

    /// The least integer ≥ self.
    pub fn ceil(&self) -> Q {
        match self.0 {
            Repr::Small(n, d) => Q::from_i128(Integer::div_ceil(&i128::from(n), &i128::from(d)), 1),
            Repr::Big(ref b) => Q::from_big(b.ceil()),
        }
    }

    /// The integer part, rounding toward zero.
    pub fn trunc(&self) -> Q {
        match self.0 {
            Repr::Small(n, d) => Q::int(n / d),
            Repr::Big(ref b) => Q::from_big(b.trunc()),
        }
    }

    /// The integer part, as an integer.
    pub fn to_integer(&self) -> BigInt {
        self.trunc().numer()
    }
}

/// The small-number path of an operation on `(an, ad)`, `(bn, bd)`: the unreduced
/// result, or `None` on overflow (the big path then computes it).
type SmallOp = fn(i128, i128, i128, i128) -> Option<(i128, i128)>;

fn binop(a: &Q, b: &Q, small: SmallOp, big: fn(&BigRational, &BigRational) -> BigRational) -> Q {
    if let (Repr::Small(an, ad), Repr::Small(bn, bd)) = (&a.0, &b.0)
        && let Some((n, d)) = small(i128::from(*an), i128::from(*ad), i128::from(*bn), i128::from(*bd))
    {
        return Q::from_i128(n, d);
    }
    Q::from_big(big(&a.big(), &b.big()))
}

fn add_small(an: i128, ad: i128, bn: i128, bd: i128) -> Option<(i128, i128)> {
    if ad == 1 && bd == 1 {
        return Some((an + bn, 1));
    }
    Some((an.checked_mul(bd)?.checked_add(bn.checked_mul(ad)?)?, ad.checked_mul(bd)?))
}

fn sub_small(an: i128, ad: i128, bn: i128, bd: i128) -> Option<(i128, i128)> {
    add_small(an, ad, -bn, bd)
}

fn mul_small(an: i128, ad: i128, bn: i128, bd: i128) -> Option<(i128, i128)> {
    Some((an.checked_mul(bn)?, ad.checked_mul(bd)?))
}

fn div_small(an: i128, ad: i128, bn: i128, bd: i128) -> Option<(i128, i128)> {
    assert!(bn != 0, "division by zero");
    Some((an.checked_mul(bd)?, ad.checked_mul(bn)?))
}

fn rem_small(an: i128, ad: i128, bn: i128, bd: i128) -> Option<(i128, i128)> {
    assert!(bn != 0, "division by zero");
    let (x, y) = (an.checked_mul(bd)?, bn.checked_mul(ad)?);
    Some((x % y, ad.checked_mul(bd)?))
}

macro_rules! ops {
    ($($trait:ident $method:ident $small:ident;)*) => {$(
        impl $trait<&Q> for &Q {
            type Output = Q;
            fn $method(self, other: &Q) -> Q {
                binop(self, other, $small, |a, b| a.$method(b))
            }
        }
        impl $trait<Q> for &Q {
            type Output = Q;
            fn $method(self, other: Q) -> Q {
                self.$method(&other)
            }
        }
        impl $trait<&Q> for Q {
            type Output = Q;
            fn $method(self, other: &Q) -> Q {
                (&self).$method(other)
            }
        }
        impl $trait<Q> for Q {
            type Output = Q;
            fn $method(self, other: Q) -> Q {
                (&self).$method(&other)
            }
        }
    )*};
}

ops! {
    Add add add_small;
    Sub sub sub_small;
    Mul mul mul_small;
    Div div div_small;
    Rem rem rem_small;
}

macro_rules! assign_ops {
    ($($trait:ident $method:ident $op:tt;)*) => {$(
        impl std::ops::$trait<Q> for Q {
            fn $method(&mut self, other: Q) {
                *self = &*self $op &other;
            }
        }
        impl std::ops::$trait<&Q> for Q {
            fn $method(&mut self, other: &Q) {
                *self = &*self $op other;
            }
        }
    )*};
}

assign_ops! {
    AddAssign add_assign +;
    SubAssign sub_assign -;
    MulAssign mul_assign *;
    DivAssign div_assign /;
}

macro_rules! pow_ops {
    ($($t:ty),*) => {$(
        impl num_traits::Pow<$t> for &Q {
            type Output = Q;
            fn pow(self, e: $t) -> Q {
                Q::from_big(num_traits::Pow::pow(self.big().into_owned(), e))
            }
        }
        impl num_traits::Pow<$t> for Q {
            type Output = Q;
            fn pow(self, e: $t) -> Q {
                num_traits::Pow::pow(&self, e)
            }
        }
    )*};
}

pow_ops!(i32, u32, i64, u64);

impl Neg for &Q {
    type Output = Q;
    fn neg(self) -> Q {
        match self.0 {
            Repr::Small(n, d) => Q(Repr::Small(-n, d)),
            Repr::Big(ref b) => Q::from_big(-b.as_ref()),
        }
    }
}

impl Neg for Q {
    type Output = Q;
    fn neg(self) -> Q {
        -&self
    }
}

impl Zero for Q {
    fn zero() -> Q {
        Q(Repr::Small(0, 1))
    }
    fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small(0, _))
    }
}

impl One for Q {
    fn one() -> Q {
        Q(Repr::Small(1, 1))
    }
    fn is_one(&self) -> bool {
        matches!(self.0, Repr::Small(1, 1))
    }
}

impl Num for Q {
    type FromStrRadixErr = num_rational::ParseRatioError;
    fn from_str_radix(s: &str, radix: u32) -> Result<Q, Self::FromStrRadixErr> {
        BigRational::from_str_radix(s, radix).map(Q::from_big)
    }
}

impl Signed for Q {
    fn abs(&self) -> Q {
        if self.is_negative() { -self } else { self.clone() }
    }
    fn abs_sub(&self, other: &Q) -> Q {
        if self <= other { Q::zero() } else { self - other }
    }
    fn signum(&self) -> Q {
        Q::int(match self.cmp(&Q::zero()) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        })
    }
    fn is_positive(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n > 0,
            Repr::Big(b) => b.is_positive(),
        }
    }
    fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n < 0,
            Repr::Big(b) => b.is_negative(),
        }
    }
}

impl PartialOrd for Q {
    fn partial_cmp(&self, other: &Q) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Q {
    fn cmp(&self, other: &Q) -> Ordering {
        if let (Repr::Small(an, ad), Repr::Small(bn, bd)) = (&self.0, &other.0) {
            // |n·d| < 2^126: no overflow.
            return (i128::from(*an) * i128::from(*bd)).cmp(&(i128::from(*bn) * i128::from(*ad)));
        }
        self.big().cmp(&other.big())
    }
}

impl ToPrimitive for Q {
    fn to_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::Small(n, 1) => Some(n),
            Repr::Small(..) => None,
            Repr::Big(ref b) => b.to_i64(),
        }
    }
    fn to_u64(&self) -> Option<u64> {
        match self.0 {
            Repr::Small(n, 1) => u64::try_from(n).ok(),
            Repr::Small(..) => None,
            Repr::Big(ref b) => b.to_u64(),
        }
    }
    fn to_f64(&self) -> Option<f64> {
        match self.0 {
            // Exact when both fit in 53 bits; otherwise correctly rounded by the big path.
            Repr::Small(n, d) if n.unsigned_abs() < 1 << 53 && d < 1 << 53 => Some(n as f64 / d as f64),
            _ => self.big().to_f64(),
        }
    }
}

impl From<i64> for Q {
    fn from(n: i64) -> Q {
        Q::int(n)
    }
}

impl From<BigInt> for Q {
    fn from(n: BigInt) -> Q {
        Q::from_integer(n)
    }
}

impl fmt::Display for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Small(n, 1) => write!(f, "{n}"),
            Repr::Small(n, d) => write!(f, "{n}/{d}"),
            Repr::Big(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Debug for Q {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Q({self})")
    }
}

impl std::str::FromStr for Q {
    type Err = num_rational::ParseRatioError;
    fn from_str(s: &str) -> Result<Q, Self::Err> {
        s.parse::<BigRational>().map(Q::from_big)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    fn q(n: i64, d: i64) -> Q {
        Q::from_big(big(n, d))
    }

    #[test]
    fn agrees_with_big_rationals_at_the_edges() {
        let edge = [0, 1, -1, 2, -3, 7, i64::MAX, i64::MIN + 1, i64::MAX / 2, 1 << 40, -(1 << 53), 1_000_000_007];
        let dens = [1, 2, 3, i64::MAX, 1 << 62, 999_983];
        let mut vals = Vec::new();
        for n in edge {
            for d in dens {
                vals.push((q(n, d), big(n, d)));
            }
        }
        // i64::MIN itself, which is kept big.
        vals.push((Q::from_big(big(i64::MIN, 1)), big(i64::MIN, 1)));
        for (a, ab) in &vals {
            assert_eq!(Q::from_big(ab.clone()), *a);
            assert_eq!((-a).big().into_owned(), -ab.clone());
            assert_eq!(a.to_string(), ab.to_string());
            assert_eq!(a.is_integer(), ab.is_integer());
            assert_eq!(a.floor().big().into_owned(), ab.floor());
            assert_eq!(a.ceil().big().into_owned(), ab.ceil());
            assert_eq!(a.trunc().big().into_owned(), ab.trunc());
            for (b, bb) in &vals {
                assert_eq!((a + b).big().into_owned(), ab + bb, "{a} + {b}");
                assert_eq!((a - b).big().into_owned(), ab - bb, "{a} - {b}");
                assert_eq!((a * b).big().into_owned(), ab * bb, "{a} * {b}");
                assert_eq!(a.cmp(b), ab.cmp(bb), "{a} cmp {b}");
                assert_eq!(a == b, ab == bb);
                if !bb.is_zero() {
                    assert_eq!((a / b).big().into_owned(), ab / bb, "{a} / {b}");
                    assert_eq!((a % b).big().into_owned(), ab % bb, "{a} % {b}");
                }
            }
        }
    }

    #[test]
    fn canonical_so_equal_values_hash_alike() {
        assert_eq!(q(2, 4), q(1, 2));
        assert_eq!(Q::new(BigInt::from(6), BigInt::from(-4)), q(-3, 2));
        let huge = Q::from_integer(BigInt::from(i64::MAX) * 4);
        assert_eq!(&(&huge / &Q::int(4)) * &Q::one(), Q::int(i64::MAX));
        assert!(matches!((&huge / &Q::int(4)).0, Repr::Small(..)));
        assert!(Q::one().is_one() && Q::zero().is_zero());
        assert!(matches!(Q::int(i64::MIN).0, Repr::Big(_)));
    }
}
