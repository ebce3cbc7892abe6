/** The OpenAPI document for `/api/*`, served at `/api/openapi.json`. */
export function openApiDocument(): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 'Handoff API', version: '1' }, paths: {} };
}
