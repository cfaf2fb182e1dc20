// The chart's colours, light (the server's SVG, PDFs, PNGs) and dark (the app in dark mode):
// the app's palette (src/app/styles.css) so a chart looks like the page around it.

export interface ChartTheme {
  background: string;
  text: string;
  muted: string;
  grid: string;
  axis: string;
  palette: string[];
}

export const LIGHT: ChartTheme = {
  background: '#ffffff',
  text: '#1f2328',
  muted: '#59636e',
  grid: '#e4e7eb',
  axis: '#8c959f',
  palette: ['#2f6fde', '#e8793a', '#2ba57a', '#c94f7c', '#8a63d2', '#b58b1b', '#3aa6c4', '#6b7280'],
};

export const DARK: ChartTheme = {
  background: 'transparent',
  text: '#e6e9ee',
  muted: '#aab3bf',
  grid: '#2e343d',
  axis: '#7d8796',
  palette: ['#6d9cf0', '#f29a62', '#4cc497', '#e07aa1', '#a98ae6', '#d4ab3c', '#5cc3df', '#9aa3af'],
};
