// SHA-256 and HMAC-SHA256 over node:crypto, for the providers' webhook
// signatures and for every AWS SDK client's request signing (their `sha256`
// option: lib/store/dynamodb-client.ts, lib/workflows/step-functions.ts).
// Binary HMAC keys go to createHmac as latin1 strings (the same key bytes):
// given a Buffer, Node 24's createHmac builds and catches a TypeError while
// checking for a KeyObject, which costs more than the HMAC itself, and SigV4
// makes two HMACs per AWS call. docs/performance.md has what it buys.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** What the AWS SDK hands its hash: a string (with its encoding) or bytes. */
type Data = string | ArrayBuffer | ArrayBufferView;
type Encoding = 'utf8' | 'ascii' | 'latin1';

const bytesOf = (data: ArrayBuffer | ArrayBufferView): Buffer =>
  ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** HMAC-SHA256 keyed with these bytes, or with this string's UTF-8 bytes. */
export function hmacSha256(key: Data): Hmac {
  return typeof key === 'string' ? createHmac('sha256', key) : createHmac('sha256', bytesOf(key).toString('latin1'), { encoding: 'latin1' });
}

/**
 * The AWS SDK's hash contract (a Checksum constructor: SHA-256, or
 * HMAC-SHA256 when given a secret), as @smithy's node hash implements it,
 * with the key handed over as above.
 */
export class Sha256 {
  private readonly secret: Data | undefined;
  private hash: Hash | Hmac;

  constructor(secret?: Data) {
    this.secret = secret;
    this.hash = this.start();
  }

  update(data: Data, encoding?: Encoding): void {
    if (typeof data === 'string') this.hash.update(data, encoding ?? 'utf8');
    else this.hash.update(bytesOf(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.hash.digest());
  }

  reset(): void {
    this.hash = this.start();
  }

  /** As the SDK's own: no secret, or an empty string, is a plain SHA-256. */
  private start(): Hash | Hmac {
    return this.secret ? hmacSha256(this.secret) : createHash('sha256');
  }
}
