// An alert's def as the delivery code reads it (checked on write by model/defs.ts alertDef).
export interface AlertDef {
  metric?: string;
  aql?: string;
  condition: { op: '>' | '>=' | '<' | '<=' | 'change%'; value: number };
  email?: string[];
  webhook?: { url: string; secret: string };
  paused?: boolean;
}
