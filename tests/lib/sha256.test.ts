import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
// The SDK's own signer, which every AWS client of the service runs with our hash (a dependency of @aws-sdk/core).
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { Sha256, hmacSha256 } from '../../lib/sha256.ts';
import { dynamodb } from '../../lib/store/dynamodb.ts';
import { createStepFunctionsClient } from '../../lib/workflows/step-functions.ts';

const hex = async (hash: Sha256) => Buffer.from(await hash.digest()).toString('hex');

describe('hmacSha256', () => {
  it('keyed with bytes, gives the HMAC of those bytes, whatever they are (every byte value, empty, longer than a block)', () => {
    const keys = [Buffer.alloc(0), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), ...Array.from({ length: 200 }, () => randomBytes(randomInt(1, 150)))];
    for (const key of keys) {
      const content = randomBytes(40).toString('base64');
      expect(hmacSha256(key).update(content).digest('hex')).toBe(createHmac('sha256', key).update(content).digest('hex'));
    }
  });

  it('keyed with a string, gives the HMAC of its UTF-8 bytes', () => {
    const key = 'whsec_ключ-🔑';
    expect(hmacSha256(key).update('body').digest('hex')).toBe(createHmac('sha256', Buffer.from(key, 'utf8')).update('body').digest('hex'));
  });
});

describe('Sha256, the AWS SDK hash', () => {
  it('without a secret (or with an empty one, as the SDK does) is SHA-256', async () => {
    for (const hash of [new Sha256(), new Sha256('')]) {
      hash.update('payload');
      expect(await hex(hash)).toBe(createHash('sha256').update('payload').digest('hex'));
    }
  });

  it('with a secret is HMAC-SHA256 of the secret bytes, honouring a view into a larger buffer', async () => {
    const whole = randomBytes(96);
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 16, 48);
    const hash = new Sha256(view);
    hash.update(new Uint8Array([1, 2, 3]).buffer);
    hash.update('é', 'latin1');
    expect(await hex(hash)).toBe(createHmac('sha256', whole.subarray(16, 64)).update(Buffer.from([1, 2, 3, 0xe9])).digest('hex'));
  });

  it('starts over on reset', async () => {
    const hash = new Sha256('secret');
    hash.update('first');
    hash.reset();
    hash.update('second');
    expect(await hex(hash)).toBe(createHmac('sha256', 'secret').update('second').digest('hex'));
  });

  it("signs AWS's published SigV4 test vector (get-vanilla) as AWS does", async () => {
    const signer = new SignatureV4({
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      region: 'us-east-1',
      service: 'service',
      sha256: Sha256,
      applyChecksum: false,
    });
    const signed = await signer.sign(
      { method: 'GET', protocol: 'https:', hostname: 'example.amazonaws.com', path: '/', headers: { host: 'example.amazonaws.com' }, query: {} },
      { signingDate: new Date('2015-08-30T12:36:00Z') },
    );
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it("is the hash the service's DynamoDB and Step Functions clients sign with", () => {
    expect(dynamodb.config.sha256).toBe(Sha256);
    const sfn = createStepFunctionsClient();
    expect(sfn.config.sha256).toBe(Sha256);
    expect(sfn.config.cacheMiddleware).toBe(true);
  });
});
