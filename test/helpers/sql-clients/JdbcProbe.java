// PgJDBC against Ursa's SQL API (test/sql-api.test.ts): a prepared statement with an int
// parameter (extended protocol, typed), then DatabaseMetaData.getTables as DBeaver and
// Metabase call it. Prints "row,<region>,<count>" and "table,<name>" lines.
import java.sql.*;

public class JdbcProbe {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + System.getenv("PGPORT") + "/" + System.getenv("PGDATABASE");
    try (Connection c = DriverManager.getConnection(url, System.getenv("PGUSER"), System.getenv("PGPASSWORD"))) {
      String sql = "SELECT \"Origin Region\", count(*) AS n FROM flights, airports WHERE \"Distance\" > ? GROUP BY 1 ORDER BY 1";
      try (PreparedStatement p = c.prepareStatement(sql)) {
        p.setInt(1, 1000);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) System.out.println("row," + r.getString(1) + "," + r.getLong(2));
        }
      }
      try (ResultSet r = c.getMetaData().getTables(null, "public", "%", new String[] {"TABLE"})) {
        while (r.next()) System.out.println("table," + r.getString("TABLE_NAME"));
      }
    }
  }
}
