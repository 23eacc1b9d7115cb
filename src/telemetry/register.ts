/**
 * Tracing's entry point, loaded before the app: `node --import ./dist/src/telemetry/register.js dist/src/main.js`
 * (or `NODE_OPTIONS=--import=./dist/src/telemetry/register.js`). Without `OTEL_EXPORTER_OTLP_ENDPOINT` it does
 * nothing and no OpenTelemetry module is loaded.
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { startOpenTelemetry } = await import('./open-telemetry.js');
  startOpenTelemetry();
}
