import { DynamicModule, Global, Logger, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { SecretBox, secretBoxFor } from './secret-box';

/** Makes the one validated `AppConfig` injectable everywhere, and the `SecretBox` its keys make. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: SecretBox, useFactory: () => secretBoxFor(config, (message) => new Logger('SecretBox').warn(message)) },
      ],
      exports: [AppConfig, SecretBox],
    };
  }
}
