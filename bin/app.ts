import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { HandoffStack } from '../lib/handoff-stack.ts';
import { readParams } from '../lib/params.ts';

const app = new App();
const params = readParams(app.node);

// Environment-agnostic on purpose (no lookups): `cdk deploy` targets the profile's account and region.
new HandoffStack(app, 'HandoffStack', {
  ...params,
  stackName: `handoff-${params.stage}`,
  description: `Handoff (${params.stage}): background agent workflows that ask before they act`,
});

// cdk-nag 3 is a validation plugin (it replaced the v2 Aspect): synth fails on an unacknowledged finding.
// writeSuppressionsToCloudFormation adds an Aspect that copies each acknowledgement into the template.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
