/**
 * The exact decimal a numeral spells, for SQL's `numeric`: digits with an optional fraction and exponent,
 * the exponent expanded and leading and trailing zeros dropped (`4.994e+21` → `4994000000000000000000`,
 * `1.5e-1` → `0.15`, `007` → `7`); null for anything else.
 */
export function expandDecimal(numeral: string): string | null {
  const match = /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(numeral);
  if (match === null) return null;
  // The pattern always captures the whole part; the default only satisfies the type.
  const [, whole = "", fraction = "", exponent = "0"] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const integer = point <= 0 ? "0" : digits.slice(0, point).padEnd(point, "0");
  const decimals =
    point >= digits.length ? "" : (point < 0 ? "0".repeat(-point) : "") + digits.slice(Math.max(point, 0));
  const exact = integer.replace(/^0+(?=[0-9])/, "");
  const tail = decimals.replace(/0+$/, "");
  return tail === "" ? exact : `${exact}.${tail}`;
}
