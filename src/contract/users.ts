// A project's members as the API lists them (docs/api.md "Users", GET /projects/{p}/users).

export interface ProjectMember {
  /** The member's e-mail address. */
  id: string;
  active: boolean;
  admin: boolean;
  mdadmin: boolean;
  useradmin: boolean;
  roles: string[];
  /** Their row-level filter (AQL), null when none. */
  filter: string | null;
  /** Who invited them (the project's maker invites themself); null when not recorded. */
  invitedBy: string | null;
  created: string;
  updated: string;
}
