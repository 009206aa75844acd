// What a bulk edit plugin does: it writes the orders' modified date with one UPDATE, so many orders share one
// second. (Saving orders one by one cannot place them on a chosen second: HPOS keeps set_date_modified, but the
// posts storage saves through wp_update_post, which stamps the current time.) Both storages:
// HPOS keeps it in wc_orders.date_updated_gmt, the posts storage in post_modified and post_modified_gmt
// (synchronisation between the two is off in these stores, so each storage is written on its own).
function rw_set_modified(array $ids, int $at) {
  global $wpdb;
  if (!$ids) return;
  $list = implode(',', array_map('intval', $ids));
  $gmt = gmdate('Y-m-d H:i:s', $at);
  if (\Automattic\WooCommerce\Utilities\OrderUtil::custom_orders_table_usage_is_enabled()) {
    $wpdb->query($wpdb->prepare("UPDATE {$wpdb->prefix}wc_orders SET date_updated_gmt = %s WHERE id IN ($list)", $gmt));
  } else {
    $local = get_date_from_gmt($gmt);
    $wpdb->query($wpdb->prepare("UPDATE {$wpdb->posts} SET post_modified_gmt = %s, post_modified = %s WHERE ID IN ($list)", $gmt, $local));
  }
  foreach ($ids as $id) { clean_post_cache($id); wp_cache_delete($id, 'orders'); }
}
// One modified second per order, from a callback on the order.
function rw_set_modified_each(array $ids, callable $when) {
  foreach ($ids as $id) { $o = wc_get_order($id); if ($o) rw_set_modified([$id], $when($o)); }
}
