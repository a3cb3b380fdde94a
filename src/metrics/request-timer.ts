import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { MetricsService } from './metrics.service';

/**
 * Times every request into `metrics.requests`; the route is the matched pattern, so
 * ids do not explode the labels. Express middleware, kept out of the service.
 */
export function requestTimer(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const end = metrics.requests.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      end({
        method: req.method,
        route: route ? `${req.baseUrl}${route}` : 'unmatched',
        status: String(res.statusCode),
      });
    });
    next();
  };
}
