// PgJDBC's DatabaseMetaData against Ursa's SQL API (test/sql-catalog.test.ts), the calls
// DBeaver, Metabase and Tableau's JDBC path make: columns, primary and foreign keys, schemas.
// Prints "kind,value,…" lines.
import java.sql.*;

public class JdbcMeta {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + System.getenv("PGPORT") + "/" + System.getenv("PGDATABASE");
    try (Connection c = DriverManager.getConnection(url, System.getenv("PGUSER"), System.getenv("PGPASSWORD"))) {
      DatabaseMetaData m = c.getMetaData();
      try (ResultSet r = m.getColumns(null, "public", "flights", "%")) {
        while (r.next())
          System.out.println("column," + r.getString("COLUMN_NAME") + "," + r.getString("TYPE_NAME") + "," + r.getInt("DATA_TYPE"));
      }
      try (ResultSet r = m.getPrimaryKeys(null, "public", "airports")) {
        while (r.next()) System.out.println("pk," + r.getString("COLUMN_NAME"));
      }
      try (ResultSet r = m.getImportedKeys(null, "public", "flights")) {
        while (r.next())
          System.out.println("fk," + r.getString("FKCOLUMN_NAME") + "," + r.getString("PKTABLE_NAME") + "," + r.getString("PKCOLUMN_NAME"));
      }
      try (ResultSet r = m.getSchemas()) {
        while (r.next()) System.out.println("schema," + r.getString("TABLE_SCHEM"));
      }
    }
  }
}
