/**
 * Sends `total` keyed searches over `connections` concurrent keep-alive connections,
 * connection i to `urls[i % urls.length]`; answers their statuses.
 */
export async function fire(
  urls: string[],
  key: string,
  total: number,
  connections: number,
): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async (connection: number) => {
    while (next < total) {
      next++;
      const response = await fetch(`${urls[connection % urls.length]}/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Who coached Calcio Catania?' }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)));
  return statuses;
}

export const count = (statuses: number[], status: number) =>
  statuses.filter((s) => s === status).length;
