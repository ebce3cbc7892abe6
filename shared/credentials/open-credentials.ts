import { z } from 'zod';
import type { Env } from '../config/env.ts';
import type { Store } from '../store/store.ts';
import type { CredentialCipher } from './cipher.ts';
import { Credentials } from './credentials.ts';
import { LocalCipher } from './local-cipher.ts';
import { refusingCipher } from './no-credentials.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

// Read here until env.ts carries HANDOFF_KMS_KEY_ID itself.
const KmsEnvSchema = z.object({ HANDOFF_KMS_KEY_ID: z.string().min(1).optional() });

function kmsKeyIdIn(source: NodeJS.ProcessEnv): string | undefined {
  return KmsEnvSchema.parse({ HANDOFF_KMS_KEY_ID: source.HANDOFF_KMS_KEY_ID || undefined })
    .HANDOFF_KMS_KEY_ID;
}

/**
 * The credential store the environment asks for: sealed with KMS when
 * HANDOFF_KMS_KEY_ID is set (the AWS deployment), else with the local key file
 * `<HANDOFF_STATE_DIR>/credentials.key`.
 */
export function credentialsFor(
  env: Env,
  store: Store,
  source: NodeJS.ProcessEnv = process.env,
  workspace: string = DEFAULT_WORKSPACE,
): Credentials {
  const keyId = kmsKeyIdIn(source);
  if (keyId) return new Credentials(store, lazyKmsCipher(env.AWS_REGION, keyId), workspace);
  return new Credentials(store, LocalCipher.inStateDir(env.HANDOFF_STATE_DIR), workspace);
}

/**
 * The credential store of a host whose disk does not last (a Lambda function): KMS when
 * HANDOFF_KMS_KEY_ID is set, else one that names the variable whenever a value is sealed
 * or opened. Listing names works either way; nothing is loaded until a value is needed.
 */
export function kmsOnlyCredentials(
  region: string | undefined,
  store: Store,
  source: NodeJS.ProcessEnv = process.env,
  workspace: string = DEFAULT_WORKSPACE,
): Credentials {
  const keyId = kmsKeyIdIn(source);
  return new Credentials(store, keyId ? lazyKmsCipher(region, keyId) : noKeyCipher, workspace);
}

/** KMS, with the SDK client loaded and made on first use: hosts that never open a credential never pay for it. */
function lazyKmsCipher(region: string | undefined, keyId: string): CredentialCipher {
  let cipher: Promise<CredentialCipher> | undefined;
  const kms = () =>
    (cipher ??= (async () => {
      const { kmsCipherIn } = await import('./kms-cipher.ts');
      return kmsCipherIn(region, keyId);
    })());
  return {
    kind: 'kms',
    seal: async (name, value) => (await kms()).seal(name, value),
    open: async (name, sealed) => (await kms()).open(name, sealed),
  };
}

const noKeyCipher = refusingCipher(
  'HANDOFF_KMS_KEY_ID is not set for this function, so credentials cannot be sealed or opened here (a local key file would not survive)',
);

/** {@link kmsOnlyCredentials} for each store and workspace a Lambda engine makes: the part handlers wire in. */
export function kmsCredentials(region: string | undefined): (store: Store, workspace: string) => Credentials {
  return (store, workspace) => kmsOnlyCredentials(region, store, process.env, workspace);
}
