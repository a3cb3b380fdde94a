import { Injectable } from '@nestjs/common';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Response } from 'express';
import type { Caller } from '../accounts/caller';
import { ApiKeyGuard, MissingApiKeyError } from '../auth/api-key.guard';
import { QuotaService } from '../billing/quota.service';
import { Problem } from '../common/problem';
import { ProblemFilter } from '../http/problem.filter';
import { BodyValidationPipe } from '../http/validation.pipe';
import { CorpusService, CorpusStatus } from '../corpus/corpus.service';
import { FactDto } from '../facts/fact.dto';
import { ResearchRequestDto, SearchRequestDto } from '../search/search-request.dto';
import { FactAnswer, FactQuery, SearchService } from '../search/search.service';
import { answerText, statusText } from './tool-text';
import { dtoSchema, listSchema } from './tool-schemas';

/**
 * Who a tool call runs for: an HTTP caller whose bearer key is checked and whose call
 * is metered (the RateLimit headers go on `response`), or `local`, the operator of an
 * embedded store serving their own agent over stdio.
 */
export type ToolAccess = { authorization: string | undefined; response: Response } | 'local';

const ANSWER_FIELDS = {
  model_cutoff: {
    type: 'string',
    description:
      'The training cutoff of model_id that set the date floor, or "unknown" (then no floor ' +
      'applied); absent without model_id.',
  },
  match: {
    type: 'string',
    enum: ['close', 'nearest'],
    description:
      '"close" when the facts match the question; "nearest" when none did and the nearest ' +
      'facts were returned instead: then treat them as possibly unrelated.',
  },
};

const SEARCH_DESCRIPTION =
  'Dated, sourced facts that correct what your training data says. Call it before stating ' +
  'anything that may have changed since your training cutoff (who holds an office or a ' +
  'post, coaches a team, leads a company; records, releases, results, recent events). Ask ' +
  'one focused question about one topic per call; call again for another topic. Pass your ' +
  'own model id as model_id (e.g. "anthropic/claude-sonnet-4" or "openai/gpt-4o") so that ' +
  'only facts newer than your cutoff come back. Facts come newest first; each has the day ' +
  'it was known true and its sources. Use true_by_min / true_by_max for a date window.';

const RESEARCH_DESCRIPTION =
  'The research endpoint: the same dated, sourced facts as search_facts for one focused ' +
  'question, without a date window, under the key research_guidance. Prefer search_facts; ' +
  'this exists for agents written against POST /api/research.';

interface FactTool {
  definition: Tool;
  dto: typeof ResearchRequestDto;
  /** The key of the facts in the structured result, as the HTTP endpoint names it. */
  key: 'results' | 'research_guidance';
}

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

const FACT_TOOLS: FactTool[] = [
  {
    key: 'results',
    dto: SearchRequestDto,
    definition: {
      name: 'search_facts',
      title: 'Search fresh facts',
      description: SEARCH_DESCRIPTION,
      inputSchema: dtoSchema(SearchRequestDto),
      outputSchema: listSchema('results', FactDto, ANSWER_FIELDS),
      annotations: READ_ONLY,
    },
  },
  {
    key: 'research_guidance',
    dto: ResearchRequestDto,
    definition: {
      name: 'research_facts',
      title: 'Research fresh facts',
      description: RESEARCH_DESCRIPTION,
      inputSchema: dtoSchema(ResearchRequestDto),
      outputSchema: listSchema('research_guidance', FactDto, ANSWER_FIELDS),
      annotations: READ_ONLY,
    },
  },
];

const CORPUS_STATUS: Tool = {
  name: 'corpus_status',
  title: 'How fresh the facts are',
  description:
    'How many facts freshfacts holds, the date of the newest, and per source kind how many ' +
    'sources feed it and when one last ran successfully. Call it to judge whether an empty ' +
    'or old answer means "nothing new" or "not covered"; it does not count as a search.',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: {
    type: 'object',
    properties: {
      facts: { type: 'integer' },
      newest_true_by: { type: ['string', 'null'], format: 'date' },
      sources: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            kind: { type: 'string' },
            sources: { type: 'integer' },
            last_success_at: { type: ['string', 'null'], format: 'date-time' },
          },
          required: ['kind', 'sources', 'last_success_at'],
        },
      },
    },
    required: ['facts', 'newest_true_by', 'sources'],
  },
  annotations: READ_ONLY,
};

/**
 * The MCP tools over the same services as the HTTP endpoints, in the same order of
 * checks: API key, arguments (the endpoint's DTO rules), quota, search. A refused
 * call is a tool error whose text tells the model what happened and what to do.
 */
@Injectable()
export class FactTools {
  private readonly arguments = new BodyValidationPipe();
  private readonly problems = new ProblemFilter();

  constructor(
    private readonly search: SearchService,
    private readonly quota: QuotaService,
    private readonly keys: ApiKeyGuard,
    private readonly corpus: CorpusService,
  ) {}

  get definitions(): Tool[] {
    return [...FACT_TOOLS.map((tool) => tool.definition), CORPUS_STATUS];
  }

  async call(name: string, args: unknown, access: ToolAccess): Promise<CallToolResult> {
    const tool = FACT_TOOLS.find((candidate) => candidate.definition.name === name);
    if (!tool && name !== CORPUS_STATUS.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    try {
      if (!tool) return statusResult(await this.status(access));
      return factsResult(tool, await this.answer(tool, args ?? {}, access));
    } catch (err) {
      return this.refusal(err);
    }
  }

  private async answer(tool: FactTool, args: unknown, access: ToolAccess): Promise<FactAnswer> {
    if (access === 'local') return this.search.find(await this.validated(tool, args));
    const caller = await this.caller(access.authorization);
    const query = await this.validated(tool, args);
    const meter = this.quota.meterFor(caller);
    try {
      return (await meter.metered(() => this.search.find(query))).value;
    } finally {
      // The RateLimit headers of a counted call go out even when it fails, as over HTTP.
      access.response.set(meter.headers);
    }
  }

  // Like GET /v1/models, the status is not metered; it still takes a key over HTTP.
  private async status(access: ToolAccess): Promise<CorpusStatus> {
    if (access !== 'local') await this.caller(access.authorization);
    return this.corpus.status();
  }

  private caller(authorization: string | undefined): Promise<Caller> {
    if (authorization === undefined) throw new MissingApiKeyError();
    return this.keys.accountOf(authorization);
  }

  private async validated(tool: FactTool, args: unknown): Promise<FactQuery> {
    return (await this.arguments.transform(args, {
      type: 'body',
      metatype: tool.dto,
    })) as FactQuery;
  }

  private refusal(err: unknown): CallToolResult {
    const [problem] = this.problems.toProblem(err);
    const title = problem.status === 422 ? 'Invalid arguments' : problem.title;
    return {
      isError: true,
      content: [{ type: 'text', text: `${title}: ${problem.detail}` }],
      _meta: { 'freshfacts/problem': problem satisfies Problem },
    };
  }
}

function factsResult(tool: FactTool, answer: FactAnswer): CallToolResult {
  const structured: Record<string, unknown> = { [tool.key]: answer.facts };
  if (answer.modelCutoff) structured.model_cutoff = answer.modelCutoff;
  structured.match = answer.match;
  return {
    structuredContent: structured,
    content: [{ type: 'text', text: answerText(answer) }],
  };
}

function statusResult(status: CorpusStatus): CallToolResult {
  return {
    structuredContent: { ...status },
    content: [{ type: 'text', text: statusText(status) }],
  };
}
