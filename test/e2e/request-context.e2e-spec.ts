import { Body, Controller, Injectable, Logger, Module, Post } from '@nestjs/common';
import { CommandBus, CommandHandler, CqrsModule, type ICommandHandler } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/bootstrap/create-app.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

@Injectable()
class Greeter {
  private readonly logger = new Logger('Greeter');

  async greet(name: string): Promise<void> {
    this.logger.log(`greeting ${name}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.logger.warn({ msg: 'greeted', name });
  }
}

class RecordGreeting {
  constructor(readonly name: string) {}
}

@CommandHandler(RecordGreeting)
class RecordGreetingHandler implements ICommandHandler<RecordGreeting> {
  private readonly logger = new Logger('RecordGreeting');

  async execute(command: RecordGreeting): Promise<void> {
    await Promise.resolve();
    this.logger.log(`recorded ${command.name}`);
  }
}

@Controller('log-fixture')
class LogFixtureController {
  constructor(
    private readonly greeter: Greeter,
    private readonly commands: CommandBus,
  ) {}

  @Post()
  async greet(@Body() body: { name: string }): Promise<Record<string, never>> {
    await this.greeter.greet(body.name);
    await this.commands.execute(new RecordGreeting(body.name));
    return {};
  }
}

@Module({
  imports: [CqrsModule],
  controllers: [LogFixtureController],
  providers: [Greeter, RecordGreetingHandler],
})
class LogFixtureModule {}

describe('request id on log lines', () => {
  let database: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ferry_e2e');
    const config = loadAppConfig({
      ENVIRONMENT: 'test',
      LOG_LEVEL: 'debug',
      DATABASE_URL: database.url,
      PROJECTIONS_RUN: 'false',
      WEBHOOKS_RUN: 'false',
    });
    // Nest's logger is left on: its lines and Fastify's go to the same stream.
    app = await createApp(config, {
      extraModules: [LogFixtureModule],
      logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  const greet = (name: string, requestId: string) =>
    fetch(`${url}/log-fixture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ name }),
    });

  it("carries the request's id on every line its service and command handler write, across awaits", async () => {
    // Two requests at once: each line must name its own.
    const answers = await Promise.all([greet('ada', 'ctx-ada'), greet('bob', 'ctx-bob')]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    for (const name of ['ada', 'bob']) {
      const own = lines.filter((line) => line.reqId === `ctx-${name}`);
      expect(own).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ level: 'info', context: 'Greeter', msg: `greeting ${name}` }),
          expect.objectContaining({ level: 'warn', context: 'Greeter', msg: 'greeted', name }),
          expect.objectContaining({ level: 'info', context: 'RecordGreeting', msg: `recorded ${name}` }),
          // Fastify's request line, in the same stream and shape.
          expect.objectContaining({ level: 'debug', msg: 'request completed', res: { statusCode: 201 } }),
        ]),
      );
      expect(
        own.every((line) => JSON.stringify(line).includes(name) || line.msg === 'request completed'),
      ).toBe(true);
    }
  });

  it('keeps the id when the body arrives after the headers (read from socket events, outside the request)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ name: 'cyd' });
      const request = httpRequest(`${url}/log-fixture`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-request-id': 'ctx-cyd',
        },
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0)).on('error', reject);
      request.flushHeaders();
      setTimeout(() => request.end(body), 50);
    });
    expect(status).toBe(201);
    expect(lines.filter((line) => line.context === 'Greeter' && line.msg === 'greeting cyd')).toEqual([
      expect.objectContaining({ reqId: 'ctx-cyd' }),
    ]);
  });

  it('writes no request id on lines written outside any request', async () => {
    const before = lines.length;
    await app.get(Greeter).greet('nobody');
    const outside = lines.slice(before);
    expect(outside.filter((line) => line.context === 'Greeter').map((line) => line.msg)).toEqual([
      'greeting nobody',
      'greeted',
    ]);
    // Background work logging meanwhile (workers, timers) carries none either.
    expect(outside.every((line) => !('reqId' in line))).toBe(true);
    // Start-up lines (Nest's routes, "application successfully started") carry none either.
    const started = lines.find((line) => line.context === 'NestApplication');
    expect(started).toBeDefined();
    expect(started).not.toHaveProperty('reqId');
  });
});
