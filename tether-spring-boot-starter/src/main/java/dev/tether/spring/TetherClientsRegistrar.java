package dev.tether.spring;

import dev.tether.Tether;
import java.util.Map;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Defines one bean per {@code tether.clients.<bean>} entry, typed by its interface, so it can be
 * injected like any other; the proxy is made on the context's {@code Tether} when first needed.
 */
final class TetherClientsRegistrar
    implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanClassLoaderAware {
  private Environment environment;
  private ClassLoader classLoader;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    BeanFactory beans = (BeanFactory) registry;
    for (Map.Entry<String, TetherBootProperties.Client> e :
        TetherClients.of(environment).byBeanName().entrySet()) {
      String bean = e.getKey();
      TetherBootProperties.Client client = e.getValue();
      registry.registerBeanDefinition(
          bean,
          definition(
              beans, bean, client, TetherClients.serviceInterface(bean, client, classLoader)));
    }
  }

  private static <T> RootBeanDefinition definition(
      BeanFactory beans, String bean, TetherBootProperties.Client client, Class<T> type) {
    RootBeanDefinition d =
        new RootBeanDefinition(
            type, () -> TetherClients.proxy(beans.getBean(Tether.class), bean, client).as(type));
    d.setDescription("Tether proxy tether.clients." + bean);
    return d;
  }
}
