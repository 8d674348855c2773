import { describe, expect, it } from 'vitest';
import {
  mergeMirrorIndex,
  mergeMirrorVersion,
  platformProblem,
} from '../../../../functions/core/terraform/provider-mirror-index.js';

describe('merging network mirror documents', () => {
  it('index.json: every version of both, in order', () => {
    expect(
      mergeMirrorIndex({ versions: { '5.2.0': {} } }, { versions: { '5.1.0': {}, '5.2.0': {} } }),
    ).toEqual({
      versions: { '5.1.0': {}, '5.2.0': {} },
    });
    expect(mergeMirrorIndex(undefined, { versions: { '5.1.0': {} } })).toEqual({ versions: { '5.1.0': {} } });
  });

  it('<version>.json: platforms of both; the same archive keeps the hashes of both, a different one only its own', () => {
    const existing = {
      archives: {
        linux_amd64: { url: 'aws_5.1.0_linux_amd64.zip', hashes: ['h1:a', 'zh:z'] },
        darwin_arm64: { url: 'old.zip', hashes: ['h1:old'] },
      },
    };
    const added = {
      archives: {
        linux_amd64: { url: 'aws_5.1.0_linux_amd64.zip', hashes: ['h1:a', 'h1:b'] },
        darwin_arm64: { url: 'aws_5.1.0_darwin_arm64.zip', hashes: ['h1:new'] },
        linux_arm64: { url: 'aws_5.1.0_linux_arm64.zip' },
      },
    };
    expect(mergeMirrorVersion(existing, added)).toEqual({
      archives: {
        darwin_arm64: { url: 'aws_5.1.0_darwin_arm64.zip', hashes: ['h1:new'] },
        linux_amd64: { url: 'aws_5.1.0_linux_amd64.zip', hashes: ['h1:a', 'zh:z', 'h1:b'] },
        linux_arm64: { url: 'aws_5.1.0_linux_arm64.zip' },
      },
    });
  });

  it('platforms are os_arch', () => {
    expect(platformProblem('linux_amd64')).toBeUndefined();
    expect(platformProblem('linux')).toMatch(/not a Terraform platform/);
    expect(platformProblem('Linux_AMD64')).toMatch(/not a Terraform platform/);
  });
});
