/**
 * The layer rules of docs/architecture.md, checked by `npm run lint`. A rule broken
 * here is a design change: say it in docs/architecture.md before relaxing it.
 */
const bottom = '^src/(common|config|database|accounts)/';
const features = '^src/(?!common/|config/|database/|accounts/)[^/]+/';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders depend on each other one way only.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'No file depends on itself through others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'bottom-stays-bottom',
      comment: 'common, config, database and accounts import no feature folder.',
      severity: 'error',
      from: { path: bottom },
      to: { path: features },
    },
    {
      name: 'repositories-below-services',
      comment: 'A repository speaks SQL and knows nothing above it.',
      severity: 'error',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '\\.(service|guard|interceptor|controller|filter)\\.ts$' },
    },
    {
      name: 'services-below-http',
      comment: 'Services return values and throw domain errors; HTTP is written above them.',
      severity: 'error',
      from: { path: '\\.service\\.ts$' },
      to: { path: '\\.(guard|interceptor|controller|filter)\\.ts$|^src/cli/' },
    },
    {
      name: 'services-write-no-http',
      comment: 'Only controllers, guards, interceptors and filters touch express.',
      severity: 'error',
      from: { path: '\\.(service|repository)\\.ts$' },
      to: { path: 'node_modules/(express|@types/express)/' },
    },
    {
      name: 'sql-in-repositories',
      comment:
        'Only repositories, entities, the database layer and migrations reach TypeORM or pg.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: '\\.(repository|entity)\\.ts$|^src/database/|\\.module\\.ts$',
      },
      to: { path: 'node_modules/(typeorm|pg)/' },
    },
    {
      name: 'service-apart-from-tools',
      comment: 'The service never imports tools/ (benchmarks, distillation).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^tools/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
