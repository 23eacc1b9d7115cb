import { readFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../../src/bootstrap/openapi.js';
import { renderErrorsDoc } from '../../src/common/http/errors-doc.js';
import { startTestApp, type TestApp } from '../support/app.js';

describe('checked-in generated documents', () => {
  let app: TestApp;
  beforeAll(async () => {
    // The documented API has the oracle mounted (as `npm start` in development does).
    app = await startTestApp({ PROJECTIONS_RUN: 'false', ORACLE_MOUNT: 'true' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('docs/openapi.json matches the running app (regenerate with `npm run openapi`)', () => {
    const checkedIn = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));
    expect(checkedIn).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(app.app))));
  });

  it('docs/errors.md lists every error code (regenerate with `npm run openapi`)', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(renderErrorsDoc());
  });
});
