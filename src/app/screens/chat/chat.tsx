// Chat with the data: conversations, questions and answers with their queries and charts.
export function Chat(_props: { rest: string[] }) {
  return <section />;
}
