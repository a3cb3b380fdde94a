import { DynamicModule, Global, Module } from '@nestjs/common';
import { CONFIG, Config } from './config';

/** Provides the one `Config` (token `CONFIG`) to every module; tests build their own. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: CONFIG, useValue: config }],
      exports: [CONFIG],
    };
  }
}
