/**
 * Kubernetes resource quantities: the API server stores `0.5` CPU as `500m` and `1024Mi` as `1Gi`,
 * so a manifest and the live object can say the same thing in different words.
 */
const SUFFIX_FACTORS: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** The value of a quantity, or undefined when the text is not one. */
export function parseQuantity(value: string | number | boolean): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (match === null) return undefined;
  const [, number, exponent, suffix] = match;
  const base = Number(`${number}${exponent ?? ''}`);
  return base * (SUFFIX_FACTORS[suffix ?? ''] ?? 1);
}

export function quantitiesEqual(a: string | number | boolean, b: string | number | boolean): boolean {
  const left = parseQuantity(a);
  const right = parseQuantity(b);
  if (left === undefined || right === undefined) return a === b;
  // Relative tolerance: binary suffixes times decimal fractions are not exact in floating point.
  return Math.abs(left - right) <= Math.max(Math.abs(left), Math.abs(right)) * 1e-9;
}
