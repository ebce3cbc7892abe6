/**
 * The floor of a Lambda cold import (bench/lambda-bundles.ts): the Strands Agent and a
 * DynamoDB client made at module scope, as a handler makes it, and nothing of Handoff.
 * Bundled and imported exactly as the functions are.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent } from '@strands-agents/sdk';

const client = new DynamoDBClient({});

export const handler = (): string[] => [Agent.name, typeof client.send];
