import { readFileSync } from 'node:fs';
import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { jsonBody } from './common/json-body';
import { ProblemFilter } from './common/problem.filter';
import { BodyValidationPipe } from './common/validation.pipe';
import { AppConfig } from './config/config';

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
  });
  app.disable('x-powered-by');
  app.use(jsonBody());
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
