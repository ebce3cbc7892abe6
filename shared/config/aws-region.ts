/**
 * The region option of an AWS SDK client: `{ region }` when the person set one
 * (AWS_REGION or AWS_DEFAULT_REGION, see env.ts), else nothing, so the SDK resolves it
 * itself (the profile's region in AWS_CONFIG_FILE, the instance's). Lambda sets AWS_REGION.
 */
export function regionOption(region: string | undefined): { region?: string } {
  return region ? { region } : {};
}

/**
 * A local endpoint's client settings: placeholder credentials, and a region only because the
 * SDK insists on one (the local server ignores it).
 */
export function localEndpoint(
  endpoint: string,
  region: string | undefined,
): { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } } {
  return {
    endpoint,
    region: region ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
}
