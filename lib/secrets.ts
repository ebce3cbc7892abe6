import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface HandoffSecretsProps {
  removalPolicy: RemovalPolicy;
}

/**
 * Secrets the stack generates at deploy time; no value ever passes through the
 * template or the CLI. Each is a 64-character alphanumeric string.
 */
export class HandoffSecrets extends Construct {
  /** Signs the decision links in pause notifications (executor) and verifies them (api). */
  readonly linkKey: Secret;
  /** The bearer key for the event feed and the local-style API-key path (api). */
  readonly apiKey: Secret;
  /** The HMAC key webhook callers sign bodies with (webhook). */
  readonly webhookSecret: Secret;

  /** Seals integration credentials in the store (`handoff credentials set`); the acting steps open them. */
  readonly credentialsKey: Key;

  constructor(scope: Construct, id: string, props: HandoffSecretsProps) {
    super(scope, id);
    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: 'Handoff: encrypts integration credentials at rest',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    this.linkKey = this.generated('LinkKey', 'Handoff: HMAC key that signs decision links', props);
    this.apiKey = this.generated('ApiKey', 'Handoff: bearer key for the API and event feed', props);
    this.webhookSecret = this.generated('WebhookSecret', 'Handoff: HMAC key for signed webhooks', props);
  }

  /** Lets `fn` sign and verify decision links: LINK_KEY_SECRET_ARN and read on that secret. */
  bindLinkKey(fn: LambdaFunction): void {
    fn.addEnvironment('LINK_KEY_SECRET_ARN', this.linkKey.secretArn);
    this.linkKey.grantRead(fn);
  }

  /** Lets `fn` check the event feed's bearer key: API_KEY_SECRET_ARN and read on that secret. */
  bindApiKey(fn: LambdaFunction): void {
    fn.addEnvironment('API_KEY_SECRET_ARN', this.apiKey.secretArn);
    this.apiKey.grantRead(fn);
  }

  /** Lets `fn` verify webhook signatures: WEBHOOK_SECRET_ARN and read on that secret. */
  bindWebhookSecret(fn: LambdaFunction): void {
    fn.addEnvironment('WEBHOOK_SECRET_ARN', this.webhookSecret.secretArn);
    this.webhookSecret.grantRead(fn);
  }

  /** Lets `fn` open integration credentials: HANDOFF_KMS_KEY_ID and decrypt with that key. */
  bindCredentialsKey(fn: LambdaFunction): void {
    fn.addEnvironment('HANDOFF_KMS_KEY_ID', this.credentialsKey.keyArn);
    this.credentialsKey.grantDecrypt(fn);
  }

  private generated(id: string, description: string, props: HandoffSecretsProps): Secret {
    const secret = new Secret(this, id, {
      description,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating would invalidate every outstanding link or caller at once; rotate by hand (put-secret-value) when needed.',
    });
    return secret;
  }
}
