import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * SHA-256 (and HMAC-SHA256 with a secret) from node:crypto, in the shape @smithy/signature-v4 takes
 * (`sha256`): SigV4 signing without an SDK client (the EKS token, the tests' calls to AWS APIs).
 */
export class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(toBytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('not used by SignatureV4');
  }
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBytes(data: SourceData): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}
