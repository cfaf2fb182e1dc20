// Hypermedia in the API's answers: each resource's `link` list, and the paging block of lists.

export interface Link {
  href: string;
  id?: string;
  title?: string;
  rel: string;
}

/** The paging block of a list resource; `next` names the next page when there is one. */
export interface Paging {
  total: number;
  limit: number;
  offset: number;
  next?: string;
}
