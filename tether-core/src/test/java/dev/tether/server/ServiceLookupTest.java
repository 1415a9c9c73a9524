package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceLookupTest {
  private final ServiceHandler bank = new RawServiceHandler((op, payload, ctx) -> payload);
  private final ServiceHandler audit = new RawServiceHandler((op, payload, ctx) -> payload);
  /** Counts the lookups that reach the map. */
  private int mapLookups;
  private final Map<String, ServiceHandler> services = new HashMap<>(Map.of("bank", bank, "audit", audit)) {
    @Override
    public ServiceHandler get(Object key) {
      mapLookups++;
      return super.get(key);
    }
  };
  private final ServiceLookup lookup = new ServiceLookup(services);

  @Test
  void findsARepeatedNameWithoutTheMapWhenItIsTheSameString() {
    String name = new String("bank");

    assertThat(lookup.find(name)).isSameAs(bank);
    assertThat(lookup.find(name)).isSameAs(bank);
    assertThat(lookup.find(name)).isSameAs(bank);

    assertThat(mapLookups).isEqualTo(1);
  }

  @Test
  void anEqualNameDecodedAfreshTakesTheMapAndFindsTheSameService() {
    assertThat(lookup.find(new String("bank"))).isSameAs(bank);
    assertThat(lookup.find(new String("bank"))).isSameAs(bank);

    assertThat(mapLookups).isEqualTo(2);
  }

  @Test
  void alternatingServicesEachFindTheirOwn() {
    String bankName = new String("bank");
    String auditName = new String("audit");

    assertThat(lookup.find(bankName)).isSameAs(bank);
    assertThat(lookup.find(auditName)).isSameAs(audit);
    assertThat(lookup.find(bankName)).isSameAs(bank);
  }

  @Test
  void anUnknownNameFindsNothingEvenWhenRepeated() {
    String unknown = new String("ledger");

    assertThat(lookup.find(unknown)).isNull();
    assertThat(lookup.find(unknown)).isNull();
    assertThat(lookup.find(new String("bank"))).isSameAs(bank);
  }
}
