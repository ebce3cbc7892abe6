import { KMSClient } from '@aws-sdk/client-kms';
import { z } from 'zod';
import type { Env } from '../config/env.ts';
import type { Store } from '../store/store.ts';
import { Credentials } from './credentials.ts';
import { KmsCipher } from './kms-cipher.ts';
import { LocalCipher } from './local-cipher.ts';

// Read here until env.ts carries HANDOFF_KMS_KEY_ID itself.
const KmsEnvSchema = z.object({ HANDOFF_KMS_KEY_ID: z.string().min(1).optional() });

/**
 * The credential store the environment asks for: sealed with KMS when
 * HANDOFF_KMS_KEY_ID is set (the AWS deployment), else with the local key file
 * `<HANDOFF_STATE_DIR>/credentials.key`.
 */
export function credentialsFor(env: Env, store: Store, source: NodeJS.ProcessEnv = process.env): Credentials {
  const keyId = KmsEnvSchema.parse({
    HANDOFF_KMS_KEY_ID: source.HANDOFF_KMS_KEY_ID || undefined,
  }).HANDOFF_KMS_KEY_ID;
  if (keyId) return new Credentials(store, new KmsCipher(new KMSClient({ region: env.AWS_REGION }), keyId));
  return new Credentials(store, LocalCipher.inStateDir(env.HANDOFF_STATE_DIR));
}
