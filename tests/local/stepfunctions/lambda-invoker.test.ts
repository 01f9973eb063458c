import { describe, expect, it } from 'vitest';
import { failureFrom } from '../../../local/stepfunctions/lambda-invoker.ts';

describe('Lambda errors from serverless-offline', () => {
  it("recover the error's name, as AWS reports it", () => {
    expect(
      failureFrom({ errorType: 'Error', errorMessage: 'dropbox: gave up', trace: ['VendorUnavailable: dropbox: gave up', '    at x'] }),
    ).toMatchObject({ ok: false, errorType: 'VendorUnavailable', errorMessage: 'dropbox: gave up' });
  });

  it('keep a plain Error, and an explicit type, as they are', () => {
    expect(failureFrom({ errorType: 'Error', errorMessage: 'boom', trace: ['Error: boom'] })).toMatchObject({ errorType: 'Error' });
    expect(failureFrom({ errorType: 'Sandbox.Timedout', errorMessage: 'x', trace: ['Other: x'] })).toMatchObject({ errorType: 'Sandbox.Timedout' });
  });

  it('do not take a name from a stack that belongs to another message', () => {
    expect(failureFrom({ errorType: 'Error', errorMessage: 'a', trace: ['TypeError: b'] })).toMatchObject({ errorType: 'Error' });
  });
});
