/**
 * S3 answers listings in XML 1.0, which cannot carry most control characters; a key holding one
 * (S3 accepts any UTF-8 in a key) makes the whole page unparseable unless the request asks for
 * `encoding-type=url`. With it, S3 percent-encodes Key, Prefix, KeyMarker/NextKeyMarker and
 * StartAfter, and writes a space as `+` (a literal `+` as %2B). The AWS SDK for JavaScript v3 passes
 * the values through as S3 wrote them: decoding is the caller's.
 */
export const URL_ENCODED_LISTING = { EncodingType: 'url' } as const;

/**
 * A key (or prefix, or key marker) of a listing, decoded when the answer says it is url-encoded (a
 * server that ignored the request answers without EncodingType, its keys as they are). Undefined
 * for a value that is not valid percent-encoding: no key is better than a wrong one.
 */
export function listedKey(value: string | undefined, encodingType: string | undefined): string | undefined {
  if (value === undefined || encodingType !== 'url') return value;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
