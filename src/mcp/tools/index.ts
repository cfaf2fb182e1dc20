// Every MCP tool, one file each (named for the tool), in the order tools/list shows them.
// Helpers several tools share: common.ts (definition, errors, arguments), aql-results.ts,
// dashboard-views.ts, model-views.ts, warehouse-views.ts, flow-runs.ts and delivery-views.ts.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './common.js';
import { registerAqlHelp } from './aql-help.js';
import { registerAsk } from './ask.js';
import { registerCompatibleObjects } from './compatible-objects.js';
import { registerCreateAlert } from './create-alert.js';
import { registerCreateMetric } from './create-metric.js';
import { registerCreateProject } from './create-project.js';
import { registerCreateSubscription } from './create-subscription.js';
import { registerExplainAql } from './explain-aql.js';
import { registerGetAttributeValues } from './get-attribute-values.js';
import { registerChangeDelivery } from './change-delivery.js';
import { registerGetDashboard } from './get-dashboard.js';
import { registerGetFlowRun } from './get-flow-run.js';
import { registerGetModel } from './get-model.js';
import { registerGetObject } from './get-object.js';
import { registerListDashboards } from './list-dashboards.js';
import { registerListDeliveries } from './list-deliveries.js';
import { registerListFlows } from './list-flows.js';
import { registerListProjects } from './list-projects.js';
import { registerListReports } from './list-reports.js';
import { registerListWarehouseTables } from './list-warehouse-tables.js';
import { registerMapTables } from './map-tables.js';
import { registerRemoveDelivery } from './remove-delivery.js';
import { registerRunAql } from './run-aql.js';
import { registerRunFlow } from './run-flow.js';
import { registerRunReport } from './run-report.js';
import { registerSearchObjects } from './search-objects.js';
import { registerUpdateObject } from './update-object.js';

export { registerCreateProject };

type Register = (server: McpServer, ctx: McpContext) => void;

/** The tools every signed-in user has. */
const READ: Register[] = [
  registerListProjects,
  registerGetModel,
  registerSearchObjects,
  registerGetObject,
  registerGetAttributeValues,
  registerCompatibleObjects,
  registerRunAql,
  registerExplainAql,
  registerListReports,
  registerListDashboards,
  registerGetDashboard,
  registerRunReport,
  registerAqlHelp,
  registerAsk,
  registerListFlows,
  registerGetFlowRun,
  // A member's own subscriptions and alerts (the engine allows others' to MD Admins only).
  registerCreateSubscription,
  registerCreateAlert,
  registerListDeliveries,
  registerChangeDelivery,
  registerRemoveDelivery,
];

/**
 * For users who are MD Admin somewhere or may create a project (the engine checks the level
 * in the project each call names).
 */
const WRITE: Register[] = [
  registerCreateMetric,
  registerUpdateObject,
  registerListWarehouseTables,
  registerMapTables,
  registerRunFlow,
];

export function registerReadTools(server: McpServer, ctx: McpContext): void {
  for (const register of READ) register(server, ctx);
}

export function registerWriteTools(server: McpServer, ctx: McpContext): void {
  for (const register of WRITE) register(server, ctx);
}
