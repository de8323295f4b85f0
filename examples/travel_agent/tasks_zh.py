"""The task set in Chinese, written by hand: the same ids, tools and kinds of end state as the English.

Customers write as Chinese users do: cities in Chinese (巴黎, the booking system takes them as
written), dates as 2027年3月14日, 3月17日 or 明天/下周一, numbers as 两晚/三千五 or digits, hotel
names in 「」, their own names in Chinese (a foreign customer's as on the passport). The expected
calls keep a city as written (no tool asks for English) and dates as YYYY-MM-DD, as the tools ask.
A task that names a day relative to today expects the date from today's clock.
"""

from __future__ import annotations

from datetime import date, timedelta

from examples.travel_agent.tasks import TASKS, C, Task, U, fl

CN = {
    "Paris": "巴黎",
    "Rome": "罗马",
    "London": "伦敦",
    "Berlin": "柏林",
    "Madrid": "马德里",
    "Lisbon": "里斯本",
    "Amsterdam": "阿姆斯特丹",
    "Vienna": "维也纳",
    "Barcelona": "巴塞罗那",
    "Prague": "布拉格",
    "Dublin": "都柏林",
    "Athens": "雅典",
}


def from_today(days: int, today: date | None = None) -> str:
    """明天 is 1, 后天 2: the ISO date a relative day names."""
    return ((today or date.today()) + timedelta(days=days)).isoformat()


def next_week(weekday: int, today: date | None = None) -> str:
    """下周一 (0) … 下周日 (6): that day of next week, Monday to Sunday."""
    day = today or date.today()
    monday = day - timedelta(days=day.weekday())
    return (monday + timedelta(days=7 + weekday)).isoformat()


def _flight(n: int, origin: str, dest: str, iso: str, who: str, slot: int, ask: str, book: str) -> Task:
    """A search then a booking; `ask`/`book` are the customer's words ({o}, {d}, {f} filled in)."""
    number = fl(origin, dest, slot)
    o, d = CN[origin], CN[dest]
    return Task(
        f"flight-{n:02d}",
        (
            U(ask.format(o=o, d=d), C("search_flights", origin=o, destination=d, date=iso)),
            U(book.format(f=number), C("book_flight", flight_number=number, date=iso, passenger_name=who)),
        ),
        ("flights",),
    )


def _hotel(n: int, city: str, hotel_id: str, iso: str, nights: int, who: str, ask: str, book: str) -> Task:
    return Task(
        f"hotel-{n:02d}",
        (
            U(ask, C("search_hotels", city=CN[city], check_in=iso, nights=nights)),
            U(book, C("book_hotel", hotel_id=hotel_id, check_in=iso, nights=nights, guest_name=who)),
        ),
        ("hotels",),
    )


# fmt: off
FLIGHTS = [
    _flight(1, "Paris", "Rome", "2027-03-14", "王芳", 1,
            "帮我查一下2027年3月14日从{o}到{d}的航班。", "请帮我订{f}，2027年3月14日，乘客王芳。"),
    _flight(2, "London", "Berlin", "2027-04-03", "李强", 0,
            "2027年4月3日{o}飞{d}的航班有哪些？", "订{f}，4月3日，乘客李强。"),
    _flight(3, "Madrid", "Lisbon", "2027-05-22", "陈静", 2,
            "我想看看2027年5月22日{o}到{d}的航班。", "就订晚上那班{f}吧，2027年5月22日，乘客陈静。"),
    _flight(4, "Amsterdam", "Prague", "2027-06-09", "刘洋", 1,
            "查2027年6月9日{o}飞{d}的航班。", "订{f}，2027年6月9日，乘客刘洋。"),
    _flight(5, "Vienna", "Athens", "2027-07-30", "赵敏", 0,
            "能帮我找一下2027年7月30日{o}到{d}的航班吗？", "我要早上那班{f}，7月30日，乘客赵敏。"),
    _flight(6, "Dublin", "Barcelona", "2027-08-12", "何雪", 2,
            "2027年8月12日从{o}去{d}，有什么航班？", "请订{f}，2027年8月12日，乘客姓名何雪。"),
    _flight(7, "Rome", "London", "2027-09-05", "周杰", 1,
            "查询2027年9月5日{o}飞{d}的航班。", "订{f}，9月5日出发，乘客周杰。"),
    _flight(8, "Berlin", "Madrid", "2027-10-18", "高远", 0,
            "我要从{o}飞{d}，2027年10月18日，有哪些航班？", "帮我订{f}，2027年10月18日，乘客高远。"),
]

HOTELS = [
    _hotel(1, "Rome", "H-FCO-1", "2027-03-14", 3, "王芳",
           "我需要罗马的酒店，2027年3月14日入住，住三晚。",
           "订「Hotel Artemide」（H-FCO-1），2027年3月14日入住，住三晚，入住人王芳。"),
    _hotel(2, "Lisbon", "H-LIS-2", "2027-05-22", 4, "陈静",
           "帮我找里斯本的酒店，2027年5月22日起住四晚。",
           "就订Alfama Guesthouse，H-LIS-2，5月22日入住，四晚，客人陈静。"),
    _hotel(3, "Prague", "H-PRG-1", "2027-06-09", 2, "刘洋",
           "布拉格有什么酒店？2027年6月9日入住，两晚。",
           "订「Golden Well Hotel」（H-PRG-1），2027年6月9日起两晚，入住人刘洋。"),
    _hotel(4, "Athens", "H-ATH-2", "2027-07-30", 5, "赵敏",
           "雅典2027年7月30日入住、住五晚的酒店有哪些？",
           "帮我订Plaka Studios（H-ATH-2），7月30日入住，住5晚，入住人赵敏。"),
    _hotel(5, "Vienna", "H-VIE-1", "2027-11-02", 2, "马丽",
           "我想在维也纳住两晚，2027年11月2日入住，帮我看看酒店。",
           "订「Hotel Sacher」，H-VIE-1，2027年11月2日入住两晚，客人马丽。"),
    _hotel(6, "Dublin", "H-DUB-2", "2027-03-17", 3, "Liam Byrne",
           "都柏林3月17日入住，住三晚，有什么酒店？",
           "订Temple Bar Inn（H-DUB-2），3月17日起住三晚，入住人Liam Byrne。"),
]
# fmt: on

TRIPS = [
    Task(
        "trip-01",
        (
            U(
                "查一下2027年5月6日巴黎飞巴塞罗那的航班。",
                C("search_flights", origin="巴黎", destination="巴塞罗那", date="2027-05-06"),
            ),
            U(
                f"订2027年5月6日的{fl('Paris', 'Barcelona', 0)}，乘客吴婷。",
                C(
                    "book_flight",
                    flight_number=fl("Paris", "Barcelona", 0),
                    date="2027-05-06",
                    passenger_name="吴婷",
                ),
            ),
            U(
                "再帮我找巴塞罗那的酒店，2027年5月6日入住，住三晚。",
                C("search_hotels", city="巴塞罗那", check_in="2027-05-06", nights=3),
            ),
            U(
                "订「Hotel Arts」，H-BCN-1，5月6日入住三晚，入住人吴婷。",
                C("book_hotel", hotel_id="H-BCN-1", check_in="2027-05-06", nights=3, guest_name="吴婷"),
            ),
        ),
        ("flights", "hotels"),
    ),
    Task(
        "trip-02",
        (
            U(
                "请帮我查2027年9月21日阿姆斯特丹到都柏林的航班。",
                C("search_flights", origin="阿姆斯特丹", destination="都柏林", date="2027-09-21"),
            ),
            U(
                f"我要{fl('Amsterdam', 'Dublin', 2)}，2027年9月21日，乘客孙丽。",
                C(
                    "book_flight",
                    flight_number=fl("Amsterdam", "Dublin", 2),
                    date="2027-09-21",
                    passenger_name="孙丽",
                ),
            ),
            U(
                "再在都柏林租一辆车，2027年9月21日取车，租四天。",
                C("rent_car", city="都柏林", pickup_date="2027-09-21", days=4),
            ),
        ),
        ("flights", "cars"),
    ),
    Task(
        "trip-03",
        (
            U("2027年7月30日雅典天气怎么样？", C("get_weather", city="雅典", date="2027-07-30")),
            U(
                "好，查一下2027年7月29日罗马飞雅典的航班。",
                C("search_flights", origin="罗马", destination="雅典", date="2027-07-29"),
            ),
            U(
                f"订2027年7月29日的{fl('Rome', 'Athens', 1)}，乘客黄磊。",
                C(
                    "book_flight",
                    flight_number=fl("Rome", "Athens", 1),
                    date="2027-07-29",
                    passenger_name="黄磊",
                ),
            ),
        ),
        ("weather", "flights"),
    ),
]

BOOKINGS = [
    Task(
        "cancel-01",
        (
            U("我的行程有变，请帮我取消预订BK-1042。", C("cancel_booking", booking_id="BK-1042")),
            U("BK-1042这笔能给我退款吗？", C("request_refund", booking_id="BK-1042")),
        ),
        ("cancel",),
    ),
    Task(
        "cancel-02",
        (
            U("我想取消酒店预订BK-1043。", C("cancel_booking", booking_id="BK-1043")),
            U("谢谢。BK-1043也麻烦退一下款。", C("request_refund", booking_id="BK-1043")),
        ),
        ("cancel",),
    ),
    Task(
        "cancel-03",
        (U("帮我把BK-1044这个预订取消掉。", C("cancel_booking", booking_id="BK-1044")),),
        ("cancel",),
    ),
    Task(
        "cancel-04",
        (
            U("请取消订单BK-1045，我们不去里斯本了。", C("cancel_booking", booking_id="BK-1045")),
            U("BK-1045的钱请退给我。", C("request_refund", booking_id="BK-1045")),
        ),
        ("cancel",),
    ),
    Task(
        "refund-01",
        (U("我的航班BK-1046被取消了，我想要退款。", C("request_refund", booking_id="BK-1046")),),
        ("refund",),
    ),
    Task(
        "refund-02",
        (
            U("预订BK-1046现在是什么状态？", C("get_booking", booking_id="BK-1046")),
            U("那就把BK-1046退款吧。", C("request_refund", booking_id="BK-1046")),
        ),
        ("refund",),
    ),
    Task(
        "bags-01",
        (U("给预订BK-1041加两件托运行李。", C("add_baggage", booking_id="BK-1041", bags=2)),),
        ("extras",),
    ),
    Task(
        "bags-02",
        (
            U("BK-1047能多带一个箱子吗？加1件行李。", C("add_baggage", booking_id="BK-1047", bags=1)),
            U("另外BK-1047给我选12A座位。", C("choose_seat", booking_id="BK-1047", seat="12A")),
        ),
        ("extras",),
    ),
    Task(
        "seat-01",
        (U("预订BK-1044我想要靠窗的座位，21F。", C("choose_seat", booking_id="BK-1044", seat="21F")),),
        ("extras",),
    ),
    Task(
        "seat-02",
        (
            U("请把BK-1042的座位换成3C。", C("choose_seat", booking_id="BK-1042", seat="3C")),
            U("再给BK-1042加两件行李。", C("add_baggage", booking_id="BK-1042", bags=2)),
        ),
        ("extras",),
    ),
    Task(
        "lookup-01",
        (U("能帮我查一下预订BK-1043吗？", C("get_booking", booking_id="BK-1043")), U("谢谢，我就想问这个。")),
        ("lookup",),
    ),
    Task(
        "lookup-02", (U("我的航班BK-1047是什么时候？", C("get_booking", booking_id="BK-1047")),), ("lookup",)
    ),
    Task(
        "email-01",
        (
            U(
                "请把BK-1041的邮箱改成anna.schmidt@example.com。",
                C("update_email", booking_id="BK-1041", email="anna.schmidt@example.com"),
            ),
        ),
        ("contact",),
    ),
    Task(
        "email-02",
        (
            U(
                "把预订BK-1045的联系邮箱更新为tom.becker@mail.de",
                C("update_email", booking_id="BK-1045", email="tom.becker@mail.de"),
            ),
        ),
        ("contact",),
    ),
]

ERRANDS = [
    Task(
        "car-01",
        (
            U(
                "2027年5月22日在马德里租一辆车，租五天。",
                C("rent_car", city="马德里", pickup_date="2027-05-22", days=5),
            ),
        ),
        ("cars",),
    ),
    Task(
        "car-02",
        (
            U(
                "我要在维也纳租车，下周一取车，用三天。",
                C("rent_car", city="维也纳", pickup_date=next_week(0), days=3),
            ),
        ),
        ("cars",),
    ),
    Task(
        "weather-01",
        (U("明天伦敦的天气预报怎么样？", C("get_weather", city="伦敦", date=from_today(1))),),
        ("weather",),
    ),
    Task(
        "weather-02",
        (U("2027年10月18日柏林会下雨吗？", C("get_weather", city="柏林", date="2027-10-18")), U("谢谢！")),
        ("weather",),
    ),
    Task(
        "money-01",
        (
            U(
                "250欧元是多少美元？",
                C("convert_currency", amount=250, from_currency="EUR", to_currency="USD"),
            ),
        ),
        ("currency",),
    ),
    Task(
        "money-02",
        (
            U(
                "帮我把一千二英镑换成欧元。",
                C("convert_currency", amount=1200, from_currency="GBP", to_currency="EUR"),
            ),
        ),
        ("currency",),
    ),
]

MIXED = [
    Task(
        "mixed-01",
        (
            U("请查一下预订BK-1041。", C("get_booking", booking_id="BK-1041")),
            U("BK-1041加一件行李。", C("add_baggage", booking_id="BK-1041", bags=1)),
            U("再帮我把BK-1041的座位选在7D。", C("choose_seat", booking_id="BK-1041", seat="7D")),
        ),
        ("lookup", "extras"),
    ),
    Task(
        "mixed-02",
        (
            U(
                "查一下马德里2027年5月10日入住、住两晚的酒店。",
                C("search_hotels", city="马德里", check_in="2027-05-10", nights=2),
            ),
            U(
                "订「Sol Hostal」（H-MAD-2），2027年5月10日入住，住两晚，入住人Tom Becker。",
                C("book_hotel", hotel_id="H-MAD-2", check_in="2027-05-10", nights=2, guest_name="Tom Becker"),
            ),
            U("把我之前在里斯本订的酒店BK-1045取消掉。", C("cancel_booking", booking_id="BK-1045")),
        ),
        ("hotels", "cancel"),
    ),
    Task(
        "mixed-03",
        (
            U(
                "搜一下2027年12月2日从布拉格飞巴黎的航班。",
                C("search_flights", origin="布拉格", destination="巴黎", date="2027-12-02"),
            ),
            U(
                f"订{fl('Prague', 'Paris', 2)}，12月2日，乘客郑浩。",
                C(
                    "book_flight",
                    flight_number=fl("Prague", "Paris", 2),
                    date="2027-12-02",
                    passenger_name="郑浩",
                ),
            ),
            U(
                "三百欧元能换多少瑞士法郎？",
                C("convert_currency", amount=300, from_currency="EUR", to_currency="CHF"),
            ),
        ),
        ("flights", "currency"),
    ),
    Task(
        "mixed-04",
        (
            U("2027年8月12日巴塞罗那是晴天吗？", C("get_weather", city="巴塞罗那", date="2027-08-12")),
            U(
                "那就从8月12日起在巴塞罗那租车，租7天。",
                C("rent_car", city="巴塞罗那", pickup_date="2027-08-12", days=7),
            ),
        ),
        ("weather", "cars"),
    ),
    Task(
        "mixed-05",
        (
            U("取消BK-1047，我七月去不了了。", C("cancel_booking", booking_id="BK-1047")),
            U("预订BK-1047退款。", C("request_refund", booking_id="BK-1047")),
            U(
                "那帮我查一下2027年8月20日从雅典飞罗马的航班。",
                C("search_flights", origin="雅典", destination="罗马", date="2027-08-20"),
            ),
            U(
                f"订{fl('Athens', 'Rome', 0)}，2027年8月20日，乘客Sofia Papadopoulos。",
                C(
                    "book_flight",
                    flight_number=fl("Athens", "Rome", 0),
                    date="2027-08-20",
                    passenger_name="Sofia Papadopoulos",
                ),
            ),
        ),
        ("cancel", "flights"),
    ),
    Task(
        "mixed-06",
        (
            U(
                "给我看看阿姆斯特丹2027年6月9日入住一晚的酒店。",
                C("search_hotels", city="阿姆斯特丹", check_in="2027-06-09", nights=1),
            ),
            U(
                "订「Canal House B&B」，H-AMS-2，2027年6月9日入住一晚，入住人刘洋。",
                C("book_hotel", hotel_id="H-AMS-2", check_in="2027-06-09", nights=1, guest_name="刘洋"),
            ),
            U("好的，谢谢。"),
        ),
        ("hotels",),
    ),
    Task(
        "mixed-07",
        (
            U(
                "把BK-1044的邮箱改成mia.wong@example.org",
                C("update_email", booking_id="BK-1044", email="mia.wong@example.org"),
            ),
            U("再给BK-1044选30B座位。", C("choose_seat", booking_id="BK-1044", seat="30B")),
        ),
        ("contact", "extras"),
    ),
    Task(
        "mixed-08",
        (
            U(
                "2027年10月15日从里斯本飞阿姆斯特丹有航班吗？",
                C("search_flights", origin="里斯本", destination="阿姆斯特丹", date="2027-10-15"),
            ),
            U(
                f"订{fl('Lisbon', 'Amsterdam', 1)}，2027年10月15日，乘客林晓明。",
                C(
                    "book_flight",
                    flight_number=fl("Lisbon", "Amsterdam", 1),
                    date="2027-10-15",
                    passenger_name="林晓明",
                ),
            ),
            U("2027年10月15日阿姆斯特丹天气怎么样？", C("get_weather", city="阿姆斯特丹", date="2027-10-15")),
        ),
        ("flights", "weather"),
    ),
]

_BY_ID = {t.id: t for t in [*FLIGHTS, *HOTELS, *TRIPS, *BOOKINGS, *ERRANDS, *MIXED]}
TASKS_ZH: list[Task] = [_BY_ID[t.id] for t in TASKS]  # the English order, so a stage's pick matches
