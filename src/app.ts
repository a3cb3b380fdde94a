import { readFileSync } from 'node:fs';
import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { Lifecycle } from './health/health.controller';
import { MetricsService } from './metrics/metrics.service';
import { requestTimer } from './metrics/request-timer';
import { answerParserErrors } from './http/http-parser-errors';
import { formBody, jsonBody, pushBody, rawBody } from './http/json-body';
import { PUSH_BODY_LIMIT } from './facts/fact-batch';
import { ProblemFilter } from './http/problem.filter';
import { BodyValidationPipe } from './http/validation.pipe';
import { AppConfig, projectPath } from './config/config';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug'];

/** Builds the HTTP application (HTTPS when the config names a certificate). */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  const httpsOptions = config.tlsCertFile
    ? { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile!) }
    : undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    abortOnError: false,
    httpsOptions,
    logger: LEVELS.slice(0, LEVELS.indexOf(config.logLevel) + 1),
    // Start-up lines wait for the JSON logger below. A start that fails drops them
    // rather than printing them with Nest's stack trace: the caller reports the error
    // (serve prints a set-up problem as one line).
    bufferLogs: true,
    autoFlushLogs: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  answerParserErrors(app.getHttpServer());
  app.disable('x-powered-by');
  app.use(requestTimer(app.get(MetricsService)));
  app.use(app.get(Lifecycle).middleware());
  // The first parser to read a body wins: forms for the dashboard, the exact bytes for
  // Stripe's signature, the text of a push of facts, JSON for everything else.
  app.use('/dashboard', formBody());
  app.use('/webhooks/stripe', rawBody());
  app.use('/admin/facts', pushBody(PUSH_BODY_LIMIT));
  app.use(jsonBody());
  app.setBaseViewsDir(projectPath('views'));
  app.setViewEngine('hbs');
  app.useStaticAssets(projectPath('public'), { prefix: '/assets/', maxAge: '1h' });
  app.useGlobalPipes(new BodyValidationPipe());
  app.useGlobalFilters(new ProblemFilter());
  app.enableShutdownHooks();
  setUpSwagger(app);
  return app;
}

function setUpSwagger(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('freshfacts')
      .setDescription(
        'Dated, sourced facts for one focused question. Errors are RFC 9457 problem+json.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An ff_live_ API key' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
