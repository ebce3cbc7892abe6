import type { Store } from '../store/store.ts';
import { CredentialKeyError, type CredentialCipher } from './cipher.ts';
import { Credentials } from './credentials.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/** A cipher that refuses to seal or open, saying why; listing names still works. */
export function refusingCipher(why: string): CredentialCipher {
  const refuse = (): Promise<never> => Promise.reject(new CredentialKeyError(why));
  return { kind: 'kms', seal: refuse, open: refuse };
}

/**
 * The credential store of a host that must never open a credential (a Lambda function not
 * bound to the credentials key): names list, values are refused with `why`. Loads no KMS code.
 */
export function refusingCredentials(
  store: Store,
  why: string,
  workspace: string = DEFAULT_WORKSPACE,
): Credentials {
  return new Credentials(store, refusingCipher(why), workspace);
}
