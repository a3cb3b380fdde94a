import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { AppConfig, buildConfig } from '../config/config';

/** Runs `work` with the service's modules (database, embedder, …) but no HTTP server. */
export async function withContext<T>(
  work: (context: INestApplicationContext, config: AppConfig) => Promise<T>,
  config: AppConfig = buildConfig(process.env),
): Promise<T> {
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    // Failures reach the user through main's one-line message, not a logged stack.
    logger: false,
    abortOnError: false,
  });
  try {
    return await work(context, config);
  } finally {
    await context.close();
  }
}

/** A failure the user can fix; printed without a stack trace. */
export class UsageError extends Error {}
