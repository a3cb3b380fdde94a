import { AdminApi1764720000000 } from './1764720000000-AdminApi';
import { Billing1763856000000 } from './1763856000000-Billing';
import { Dashboard1763942400000 } from './1763942400000-Dashboard';
import { EmbeddingModel1764201600000 } from './1764201600000-EmbeddingModel';
import { FactTerms1764288000000 } from './1764288000000-FactTerms';
import { EmbeddingBits1764374400000 } from './1764374400000-EmbeddingBits';
import { FactMonths1764460800000 } from './1764460800000-FactMonths';
import { FactSeries1764547200000 } from './1764547200000-FactSeries';
import { CorpusCount1764637200000 } from './1764637200000-CorpusCount';
import { Init1763769600000 } from './1763769600000-Init';
import { LexemeSpellings1764806400000 } from './1764806400000-LexemeSpellings';
import { Payments1764028800000 } from './1764028800000-Payments';
import { SeriesQuestions1764892800000 } from './1764892800000-SeriesQuestions';
import { Sources1764115200000 } from './1764115200000-Sources';
import { SparqlSources1764633600000 } from './1764633600000-SparqlSources';

/** The one migration history, in order, for PGlite and PostgreSQL alike. */
export const MIGRATIONS = [
  Init1763769600000,
  Billing1763856000000,
  Dashboard1763942400000,
  Payments1764028800000,
  Sources1764115200000,
  EmbeddingModel1764201600000,
  FactTerms1764288000000,
  EmbeddingBits1764374400000,
  FactMonths1764460800000,
  FactSeries1764547200000,
  SparqlSources1764633600000,
  CorpusCount1764637200000,
  AdminApi1764720000000,
  LexemeSpellings1764806400000,
  SeriesQuestions1764892800000,
];
