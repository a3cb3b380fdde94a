import { SingleBar } from 'cli-progress';
import { buildConfig } from '../config/config';
import { MaintenanceService } from '../facts/maintenance.service';
import { withContext } from './context';

/** Re-embeds every stored fact with the configured encoder (after changing it). */
export async function reembedCommand(): Promise<number> {
  // The one setting that is not in the environment: the store holds another model's vectors.
  const config = Object.freeze({ ...buildConfig(process.env), checkEmbeddingModel: false });
  const started = performance.now();
  const bar = new SingleBar({
    stream: process.stderr,
    format: 're-embedding {bar} {value}/{total}',
  });
  const total = await withContext(async (context) => {
    const maintenance = context.get(MaintenanceService);
    let begun = false;
    const count = await maintenance.reembed((done, all) => {
      if (!begun) bar.start(all, 0);
      begun = true;
      bar.update(done);
    });
    bar.stop();
    return count;
  }, config);
  const seconds = (performance.now() - started) / 1000;
  console.log(`re-embedded ${total} facts in ${seconds.toFixed(1)} s`);
  return 0;
}
