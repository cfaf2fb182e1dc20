// Codes a result may name a map's regions by, beside their names: US states by two-letter
// code (keyed by the atlas's FIPS id), countries by ISO 3166-1 alpha-2 and alpha-3 (keyed by
// the atlas's numeric id; `=Name` for a region the atlas gives no id), and common other
// names of the countries world-atlas abbreviates.

/** `FIPS CODE`, comma-separated. */
export const STATE_CODES =
  '01 AL,02 AK,04 AZ,05 AR,06 CA,08 CO,09 CT,10 DE,11 DC,12 FL,13 GA,15 HI,16 ID,17 IL,' +
  '18 IN,19 IA,20 KS,21 KY,22 LA,23 ME,24 MD,25 MA,26 MI,27 MN,28 MS,29 MO,30 MT,31 NE,' +
  '32 NV,33 NH,34 NJ,35 NM,36 NY,37 NC,38 ND,39 OH,40 OK,41 OR,42 PA,44 RI,45 SC,46 SD,' +
  '47 TN,48 TX,49 UT,50 VT,51 VA,53 WA,54 WV,55 WI,56 WY,60 AS,66 GU,69 MP,72 PR,78 VI';

/** `NUMERIC ALPHA2 ALPHA3`, comma-separated. */
export const COUNTRY_CODES = [
  '242 FJ FJI,834 TZ TZA,732 EH ESH,124 CA CAN,840 US USA,398 KZ KAZ,860 UZ UZB,598 PG PNG',
  '360 ID IDN,032 AR ARG,152 CL CHL,180 CD COD,706 SO SOM,404 KE KEN,729 SD SDN,148 TD TCD',
  '332 HT HTI,214 DO DOM,643 RU RUS,044 BS BHS,238 FK FLK,578 NO NOR,304 GL GRL,260 TF ATF',
  '626 TL TLS,710 ZA ZAF,426 LS LSO,484 MX MEX,858 UY URY,076 BR BRA,068 BO BOL,604 PE PER',
  '170 CO COL,591 PA PAN,188 CR CRI,558 NI NIC,340 HN HND,222 SV SLV,320 GT GTM,084 BZ BLZ',
  '862 VE VEN,328 GY GUY,740 SR SUR,250 FR FRA,218 EC ECU,630 PR PRI,388 JM JAM,192 CU CUB',
  '716 ZW ZWE,072 BW BWA,516 NA NAM,686 SN SEN,466 ML MLI,478 MR MRT,204 BJ BEN,562 NE NER',
  '566 NG NGA,120 CM CMR,768 TG TGO,288 GH GHA,384 CI CIV,324 GN GIN,624 GW GNB,430 LR LBR',
  '694 SL SLE,854 BF BFA,140 CF CAF,178 CG COG,266 GA GAB,226 GQ GNQ,894 ZM ZMB,454 MW MWI',
  '508 MZ MOZ,748 SZ SWZ,024 AO AGO,108 BI BDI,376 IL ISR,422 LB LBN,450 MG MDG,275 PS PSE',
  '270 GM GMB,788 TN TUN,012 DZ DZA,400 JO JOR,784 AE ARE,634 QA QAT,414 KW KWT,368 IQ IRQ',
  '512 OM OMN,548 VU VUT,116 KH KHM,764 TH THA,418 LA LAO,104 MM MMR,704 VN VNM,408 KP PRK',
  '410 KR KOR,496 MN MNG,356 IN IND,050 BD BGD,064 BT BTN,524 NP NPL,586 PK PAK,004 AF AFG',
  '762 TJ TJK,417 KG KGZ,795 TM TKM,364 IR IRN,760 SY SYR,051 AM ARM,752 SE SWE,112 BY BLR',
  '804 UA UKR,616 PL POL,040 AT AUT,348 HU HUN,498 MD MDA,642 RO ROU,440 LT LTU,428 LV LVA',
  '233 EE EST,276 DE DEU,100 BG BGR,300 GR GRC,792 TR TUR,008 AL ALB,191 HR HRV,756 CH CHE',
  '442 LU LUX,056 BE BEL,528 NL NLD,620 PT PRT,724 ES ESP,372 IE IRL,540 NC NCL,090 SB SLB',
  '554 NZ NZL,036 AU AUS,144 LK LKA,156 CN CHN,158 TW TWN,380 IT ITA,208 DK DNK,826 GB GBR UK',
  '352 IS ISL,031 AZ AZE,268 GE GEO,608 PH PHL,458 MY MYS,096 BN BRN,705 SI SVN,246 FI FIN',
  '703 SK SVK,203 CZ CZE,232 ER ERI,392 JP JPN,600 PY PRY,887 YE YEM,682 SA SAU,010 AQ ATA',
  '196 CY CYP,504 MA MAR,818 EG EGY,434 LY LBY,231 ET ETH,262 DJ DJI,800 UG UGA,646 RW RWA',
  '070 BA BIH,807 MK MKD,688 RS SRB,499 ME MNE,780 TT TTO,728 SS SSD,=Kosovo XK XKX',
].join(',');

/** Other names of countries → the atlas's name. */
export const COUNTRY_ALIASES: Record<string, string> = {
  'United States': 'United States of America',
  'Democratic Republic of the Congo': 'Dem. Rep. Congo',
  'DR Congo': 'Dem. Rep. Congo',
  'Republic of the Congo': 'Congo',
  'Dominican Republic': 'Dominican Rep.',
  'Central African Republic': 'Central African Rep.',
  'Bosnia and Herzegovina': 'Bosnia and Herz.',
  'South Sudan': 'S. Sudan',
  'Czech Republic': 'Czechia',
  'North Macedonia': 'Macedonia',
  'Solomon Islands': 'Solomon Is.',
  'Equatorial Guinea': 'Eq. Guinea',
  'Western Sahara': 'W. Sahara',
  'Falkland Islands': 'Falkland Is.',
  Eswatini: 'eSwatini',
  Swaziland: 'eSwatini',
  'Ivory Coast': "Côte d'Ivoire",
  "Cote d'Ivoire": "Côte d'Ivoire",
  'Russian Federation': 'Russia',
  'Great Britain': 'United Kingdom',
  'Viet Nam': 'Vietnam',
  'Republic of Korea': 'South Korea',
  Burma: 'Myanmar',
  'East Timor': 'Timor-Leste',
  'Northern Cyprus': 'N. Cyprus',
  Türkiye: 'Turkey',
  'Lao PDR': 'Laos',
};
